"""Every key the build reads in a definition, as data: mcp-codegen's own ``x-mcp-codegen-*``
keys (where each belongs, what it does) and the MCP fields of each kind of definition (the
union over all protocol revisions, from the runtime's revision tables). The checks of
tools, prompts and resources ask it about each key they meet, so a misspelling (one of
ours, `x-mcp-codegen-shema`, or an MCP field, `readonlyHint`) stops the build with a
did-you-mean instead of silently doing nothing; the documentation lists the same data."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from mcp_schemagen.check.near_miss import edit_distance
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.load.http_call import HTTP_KEY
from mcp_schemagen.runtime.core.completion import COMPLETE_KEY
from mcp_schemagen.runtime.protocol import REVISIONS
from mcp_schemagen.runtime.protocol.resources import RESOURCE_FIELDS, TEMPLATE_FIELDS
from mcp_schemagen.runtime.resources.table import FILE_KEY, SCHEMA_KEY
from mcp_schemagen.runtime.tasks.settings import TASK_KEY

PREFIX = "x-mcp-codegen-"


@dataclass(frozen=True)
class OwnKey:
    """One of mcp-codegen's keys: the kinds of definition it belongs on, and its job."""

    key: str
    places: tuple[str, ...]
    meaning: str


OWN_KEYS: Mapping[str, OwnKey] = {
    k.key: k
    for k in (
        OwnKey(
            SCHEMA_KEY,
            ("prompt argument", "resource template"),
            "the JSON Schema of a prompt argument's string value; on a template, an object"
            " mapping each variable to the JSON Schema of its string value",
        ),
        OwnKey(
            COMPLETE_KEY,
            ("prompt argument", "resource template"),
            "a completion handler in handlers.py: true on a prompt argument; on a template,"
            " the list of variables completed",
        ),
        OwnKey(
            FILE_KEY,
            ("resource",),
            "the file (relative to the folder holding pyproject.toml) a static resource's"
            " content is read from at build time",
        ),
        OwnKey(
            HTTP_KEY,
            ("tool",),
            "the HTTP call of an operation `mcp-codegen import openapi` wrote (method, path,"
            " server, where each parameter goes): the build generates the call; never published",
        ),
        OwnKey(
            TASK_KEY,
            ("tool",),
            "how a tool runs as a task where no revision says it: ttlMs, pollIntervalMs, start"
            " (call or handler), onLost (fail or rerun); never published",
        ),
    )
}

_TOOL_ANNOTATIONS = frozenset().union(*(r.tool_annotations for r in REVISIONS))
_RESOURCE_ANNOTATIONS = frozenset().union(*(r.annotations for r in REVISIONS))

# The MCP fields the build reads, per kind of definition (and its annotations object).
MCP_FIELDS: Mapping[str, frozenset[str]] = {
    "tool": frozenset().union(*(r.tool_fields for r in REVISIONS)),
    "tool annotations": _TOOL_ANNOTATIONS,
    "prompt": frozenset().union(*(r.prompt_fields for r in REVISIONS)),
    "prompt argument": frozenset().union(*(r.prompt_argument_fields for r in REVISIONS)),
    "resource": frozenset().union(*RESOURCE_FIELDS.values()),
    "resource template": frozenset().union(*TEMPLATE_FIELDS.values()),
    "resource annotations": _RESOURCE_ANNOTATIONS,
    # An entry of `icons` (tools, prompts, resources and templates; the spec's Icon).
    "icon": frozenset({"src", "mimeType", "sizes", "theme"}),
}

_PREFIX_LETTERS = "xmcpcodegen"


def own_keys_of(kind: str) -> frozenset[str]:
    """mcp-codegen's keys that belong on a definition of ``kind``."""
    return frozenset(k.key for k in OWN_KEYS.values() if kind in k.places)


@lru_cache(maxsize=4096)  # asked of every key of every subschema; keys recur
def looks_like_own(key: str) -> bool:
    """Whether ``key`` reads as meant for mcp-codegen: its letters start (give or take two
    edits) with x-mcp-codegen, however the dashes fall (`x-mcpcodegen-complete`)."""
    letters = re.sub(r"[^a-z0-9]", "", key.lower())
    if not letters.startswith("x"):
        return False
    head = letters[: len(_PREFIX_LETTERS)]
    return edit_distance(head, _PREFIX_LETTERS) <= 2 or any(
        edit_distance(key, own) <= 2 for own in OWN_KEYS
    )


def unknown_key(key: str, kind: str, extensions: bool = True) -> str | None:
    """What is wrong with ``key`` on a definition of ``kind`` (a key of MCP_FIELDS), or
    None when the build knows it there, or it is someone else's ``x-`` extension (where
    ``extensions`` allows them: keys that are never published)."""
    known = MCP_FIELDS[kind]
    ours = own_keys_of(kind)
    if key in known or key in ours:
        return None
    if key in OWN_KEYS:
        return f"{key} belongs on {_places(OWN_KEYS[key], kind)} ({OWN_KEYS[key].meaning})"
    if looks_like_own(key):
        # The nearest of all our keys (one that belongs here wins a tie): a misspelt key
        # of another kind is more likely than a far-off one of this kind.
        guess = min(OWN_KEYS, key=lambda own: (edit_distance(key, own), own not in ours, own))
        where = "" if guess in ours else f" (which belongs on {_places(OWN_KEYS[guess], kind)})"
        listed = ", ".join(sorted(ours)) if ours else "none"
        return (
            f"unknown mcp-codegen key {key!r}; did you mean {guess!r}{where}? mcp-codegen's"
            f" keys on a {kind}: {listed}"
        )
    if key.startswith("x-") and extensions:
        return None  # data for other tools: never published, never read
    return f"unknown {kind} field {key!r}; {_hint(key, known | ours, kind)}"


_SHOWN = {"resource": "static resource (uri)"}


def _places(own: OwnKey, kind: str) -> str:
    """Where ``own`` belongs, said for an author who put it on a ``kind``: the places of
    the same family first (a resource's key is placed among resources)."""
    family = [p for p in own.places if p.split()[0] == kind.split()[0]] or list(own.places)
    return " or ".join(f"a {_SHOWN.get(p, p)}" for p in family)


def unknown_annotation(key: str, kind: str) -> tuple[bool, str] | None:
    """A key of an annotations or icon object (``kind``) no revision defines: (True,
    message) when it is a near miss of one that does (`readonlyHint`: clients would never
    see the hint meant), else (False, message) for a warning; None when known."""
    known = MCP_FIELDS[kind]
    if key in known:
        return None
    one = kind.removesuffix("s")
    guess = _guess(key, known)
    if guess is not None:
        return True, f"unknown {one} {key!r}; did you mean {guess!r}?"
    return False, (
        f"{key!r} is a field of no protocol revision's {one}, so no client reads it;"
        f" {kind} fields are {', '.join(sorted(known))}"
    )


def icon_diagnostics(definition: Mapping[str, object], file: str, pointer: str) -> list[Diagnostic]:
    """Each unknown key of each entry of the definition's ``icons``: an error for a near
    miss (`mimetype`), else a warning."""
    icons = definition.get("icons")
    problems: list[Diagnostic] = []
    if not isinstance(icons, list):
        return problems
    for index, icon in enumerate(icons):
        for key in icon if isinstance(icon, dict) else ():
            found = unknown_annotation(key, "icon")
            if found is not None:
                make = error if found[0] else warning
                problems.append(make(file, pointer_join(pointer, "icons", index, key), found[1]))
    return problems


def _guess(key: str, known: Iterable[str]) -> str | None:
    by_case = [k for k in sorted(known) if k.lower() == key.lower()]
    if by_case:
        return by_case[0]
    close = difflib.get_close_matches(key, sorted(known), n=1)
    return close[0] if close else None


# The list a file may hold its definitions in ({"tools": [...]}, a saved list result):
# a misspelt one is read as a definition with one unknown field.
FILE_LISTS: Mapping[str, tuple[str, ...]] = {
    "tool": ("tools",),
    "prompt": ("prompts",),
    "resource": ("resources", "resourceTemplates"),
    "resource template": ("resources", "resourceTemplates"),
}


def _hint(key: str, known: frozenset[str], kind: str) -> str:
    guess = _guess(key, known)
    if guess:
        return f"did you mean {guess!r}?"
    lists = FILE_LISTS.get(kind, ())
    listed = _guess(key, lists)
    if listed:
        return (
            f"did you mean {listed!r}, the list a file may hold its definitions in? Here"
            f" the object is read as one {kind}"
        )
    return f"{kind}s define {', '.join(sorted(known))}"
