"""Every key of ``[tool.mcp-codegen]`` described once, as data: its type, default,
meaning and check. load_config reads a project's table by these rows, and the docs site
renders its reference page from them (``config_reference_markdown``). A new key is one
row here and, when a build stage reads it, one field of Config."""

from __future__ import annotations

import difflib
import keyword
import re
from collections.abc import Mapping
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic
from mcp_schemagen.load.auth_config import KEY as AUTHORIZATION_KEY
from mcp_schemagen.load.auth_config import parse_authorization
from mcp_schemagen.load.config_reading import (
    ConfigKey,
    Problems,
    Reading,
    integer,
    read_table,
    reference_markdown,
    strings,
    unknown_key,
)
from mcp_schemagen.load.containment import glob_problem, inside, outside_message
from mcp_schemagen.load.published import known_tool_fields
from mcp_schemagen.load.specs import revision_names
from mcp_schemagen.runtime.core.listing import CACHE_SCOPES, DEFAULT_CACHE_SCOPE, DEFAULT_TTL_MS
from mcp_schemagen.runtime.protocol import DEFAULT_NAMES, REVISIONS
from mcp_schemagen.runtime.protocol.resources import RESOURCE_FIELDS, TEMPLATE_FIELDS
from mcp_schemagen.runtime.subscriptions.notices import LIST_KINDS

DEFAULT_TOOL_GLOBS = ("tools/*.json", "tools/*.yaml", "tools/*.yml")
DEFAULT_PROMPT_GLOBS = ("prompts/*.json", "prompts/*.yaml", "prompts/*.yml")
DEFAULT_RESOURCE_GLOBS = ("resources/*.json", "resources/*.yaml", "resources/*.yml")
DEFAULT_PAGE_SIZE = 100
MAX_TTL_MS = 2**53 - 1  # the largest integer every JSON client reads exactly
POINTER = "/tool/mcp-codegen"  # where the table is in pyproject.toml, as a JSON pointer
_PACKAGE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_package_name(name: str) -> bool:
    return bool(_PACKAGE_NAME.match(name)) and not keyword.iskeyword(name)


def _globs(key: str, folder: str, defaults: tuple[str, ...], *, required: bool) -> ConfigKey:
    """A kind's file globs: a list of patterns relative to the project, each checked."""
    what = "a non-empty list" if required else "a list"

    def more(value: Any, reading: Reading) -> Problems:
        found = [glob_problem(pattern, reading.allow_outside) for pattern in value]
        return [(key, problem) for problem in found if problem]

    return ConfigKey(
        key,
        "list of globs",
        "`[" + ", ".join(f'"{g}"' for g in defaults) + "]`",
        f"the {folder} files, relative to pyproject.toml"
        + ("" if required else f"; matching none means no {folder}"),
        f"{key.removesuffix('s')}_globs",
        valid=lambda value, reading: strings(value, nonempty=required),
        message=lambda value: f'must be {what} of glob patterns, like ["{folder}/*.json"]',
        fallback=lambda reading: list(defaults),
        more=more,
        convert=lambda value, reading: tuple(value),
    )


def _out_inside(value: Any, reading: Reading) -> Problems:
    if reading.allow_outside:
        return []
    root, package = reading.root, str(reading.values.get("package"))
    if not inside(root / value, root):
        return [("out", outside_message(f"out = {value!r}"))]
    if not inside(root / value / package, root):
        return [("package", outside_message(f"the package folder {package!r} (a symbolic link)"))]
    return []


def _unknown_revisions(value: Any, reading: Reading) -> Problems:
    known = ", ".join(revision_names())
    return [
        ("revisions", f"unknown protocol revision {name!r}; known: {known}")
        for name in value
        if name not in revision_names()
    ]


def resource_omittable_fields() -> frozenset[str]:
    """Fields of a resource or template some revision leaves out (for accept-omitted)."""
    fields = frozenset().union(*RESOURCE_FIELDS.values(), *TEMPLATE_FIELDS.values())
    annotations = frozenset().union(*(r.annotations for r in REVISIONS))
    return fields | {f"annotations/{a}" for a in annotations}


def omittable_fields() -> list[str]:
    """What accept-omitted may name: tool fields, prompts' argument titles, resources'
    fields and annotation fields."""
    return sorted(known_tool_fields() | {"arguments/title"} | resource_omittable_fields())


def _omittable(value: Any, reading: Reading) -> Problems:
    fields = omittable_fields()
    problems = []
    for name in value:
        if name not in fields:
            guess = difflib.get_close_matches(name, fields, n=1)
            hint = f"did you mean {guess[0]!r}?" if guess else f"tool fields: {', '.join(fields)}"
            problems.append(("accept-omitted", f"{name!r} is not a tool field; {hint}"))
    return problems


def _authorization(value: Any, reading: Reading) -> tuple[Any, list[Diagnostic]]:
    settings, problems = parse_authorization(value, reading.where)
    return tuple(settings.items()), problems


CONFIG_KEYS: tuple[ConfigKey, ...] = (
    ConfigKey(
        "package",
        "string",
        "(required)",
        "the generated package's import name (letters, digits, _)",
        "package",
        valid=lambda value, reading: isinstance(value, str) and is_package_name(value),
        message=lambda value: f"must be a Python package name (letters, digits, _), got {value!r}",
        fallback=lambda reading: "invalid",
        absent=lambda reading: None,
    ),
    ConfigKey(
        "out",
        "string",
        '`"."`',
        "the folder the package folder is written into, relative to pyproject.toml",
        "out_dir",
        valid=lambda value, reading: isinstance(value, str),
        message=lambda value: "must be a folder path relative to pyproject.toml",
        fallback=lambda reading: ".",
        more=_out_inside,
        convert=lambda value, reading: (reading.root / value).resolve(),
    ),
    _globs("tools", "tools", DEFAULT_TOOL_GLOBS, required=True),
    _globs("prompts", "prompts", DEFAULT_PROMPT_GLOBS, required=False),
    _globs("resources", "resources", DEFAULT_RESOURCE_GLOBS, required=False),
    ConfigKey(
        "revisions",
        "list of strings",
        "`[" + ", ".join(f'"{name}"' for name in DEFAULT_NAMES) + "]`",
        "the protocol revisions the server speaks",
        "revisions",
        valid=lambda value, reading: strings(value, nonempty=True),
        message=lambda value: (
            f"must be a non-empty list of protocol revisions from {', '.join(revision_names())}"
        ),
        fallback=lambda reading: list(DEFAULT_NAMES),
        more=_unknown_revisions,
        convert=lambda value, reading: (
            tuple(r for r in revision_names() if r in value) or DEFAULT_NAMES
        ),
    ),
    ConfigKey(
        "server-name",
        "string",
        "`[project] name`, else the package",
        "the server's name in the initialize result",
        "server_name",
        valid=lambda value, reading: isinstance(value, str) and bool(value),
        message=lambda value: "must be a non-empty string",
        fallback=lambda reading: reading.project.get("name", reading.values.get("package")),
        convert=lambda value, reading: str(value),
    ),
    ConfigKey(
        "server-version",
        "string",
        '`[project] version`, else `"0.1.0"`',
        "the server's version in the initialize result",
        "server_version",
        valid=lambda value, reading: isinstance(value, str) and bool(value),
        message=lambda value: "must be a non-empty string",
        fallback=lambda reading: reading.project.get("version", "0.1.0"),
        convert=lambda value, reading: str(value),
    ),
    ConfigKey(
        "page-size",
        "integer",
        f"`{DEFAULT_PAGE_SIZE}`",
        "items per page of tools/list, prompts/list and resources/list",
        "page_size",
        valid=lambda value, reading: integer(value, 1),
        message=lambda value: "must be a positive integer (tools per tools/list page)",
        fallback=lambda reading: DEFAULT_PAGE_SIZE,
    ),
    ConfigKey(
        "instructions",
        "string",
        "none",
        "how to use this server, sent in the initialize (and server/discover) result",
        "instructions",
        valid=lambda value, reading: (
            value is None or (isinstance(value, str) and bool(value.strip()))
        ),
        message=lambda value: (
            "must be a non-empty string: how to use this server, sent to clients in the"
            " initialize (and 2026-07-28 server/discover) result"
        ),
    ),
    ConfigKey(
        "ttl-ms",
        "integer",
        f"`{DEFAULT_TTL_MS}`",
        "milliseconds a 2026-07-28 client may reuse a tools/list or server/discover result",
        "ttl_ms",
        valid=lambda value, reading: integer(value, 0, MAX_TTL_MS),
        message=lambda value: (
            f"must be an integer from 0 to {MAX_TTL_MS}: milliseconds a 2026-07-28 client may"
            f" reuse a tools/list or server/discover result (default {DEFAULT_TTL_MS})"
        ),
        fallback=lambda reading: DEFAULT_TTL_MS,
    ),
    ConfigKey(
        "cache-scope",
        "string",
        f'`"{DEFAULT_CACHE_SCOPE}"`',
        f"who may share cached results: {' or '.join(map(repr, CACHE_SCOPES))}",
        "cache_scope",
        valid=lambda value, reading: value in CACHE_SCOPES,
        message=lambda value: (
            f"must be one of {', '.join(map(repr, CACHE_SCOPES))}, got {value!r}"
            ' ("private": results hold user-specific data, caches must not share them)'
        ),
        fallback=lambda reading: DEFAULT_CACHE_SCOPE,
    ),
    ConfigKey(
        "protocol-models",
        "boolean",
        "`false`",
        "generate PACKAGE.protocol, pydantic models of every targeted revision",
        "protocol_models",
        valid=lambda value, reading: isinstance(value, bool),
        message=lambda value: "must be true or false (generate PACKAGE.protocol, pydantic models)",
        fallback=lambda reading: False,
    ),
    ConfigKey(
        "accept-omitted",
        "list of strings",
        "`[]`",
        "fields older revisions' clients do without, accepted without a warning",
        "accept_omitted",
        valid=lambda value, reading: strings(value),
        message=lambda value: (
            f'must be a list of tool fields, like ["title"]: {", ".join(omittable_fields())}'
        ),
        fallback=lambda reading: [],
        more=_omittable,
        convert=lambda value, reading: tuple(value),
    ),
    ConfigKey(
        "accept-keywords",
        "list of strings",
        "`[]`",
        "unknown schema keywords used on purpose: no error, no warning",
        "accept_keywords",
        valid=lambda value, reading: strings(value) and all(value),
        message=lambda value: (
            'must be a list of schema keywords you use on purpose, like ["requird"]'
        ),
        fallback=lambda reading: [],
        convert=lambda value, reading: tuple(value),
    ),
    ConfigKey(
        "list-changed",
        "list of strings",
        "`[]`",
        f"the kinds whose lists may change while the server runs ({', '.join(LIST_KINDS)})",
        "list_changed",
        valid=lambda value, reading: (
            isinstance(value, list) and all(kind in LIST_KINDS for kind in value)
        ),
        message=lambda value: (
            f"must be a list of the kinds whose lists may change while the server runs, from"
            f" {', '.join(map(repr, LIST_KINDS))} (handlers announce a change with"
            f" notify_list_changed), got {value!r}"
        ),
        fallback=lambda reading: [],
        convert=lambda value, reading: tuple(kind for kind in LIST_KINDS if kind in value),
    ),
    ConfigKey(
        "resource-subscriptions",
        "boolean",
        "`false`",
        "clients may subscribe to resource updates (notify_resource_updated)",
        "resource_subscriptions",
        valid=lambda value, reading: isinstance(value, bool),
        message=lambda value: (
            "must be true or false (clients may subscribe to resource updates, which"
            f" handlers announce with notify_resource_updated), got {value!r}"
        ),
        fallback=lambda reading: False,
    ),
    ConfigKey(
        "breaking-fail",
        "list of strings",
        "breaking changes and safety",
        "the change categories that fail `mcp-codegen breaking` (read by that command only)",
        None,
    ),
    ConfigKey(
        "breaking-only-declared-properties",
        "boolean",
        "`false`",
        "`mcp-codegen breaking` takes callers to send only the properties a schema declares"
        " (oasdiff's policy): a new optional property on an open object is then compatible"
        " (read by that command only)",
        None,
    ),
    ConfigKey(
        AUTHORIZATION_KEY,
        "table",
        "none (off)",
        "OAuth 2.1 resource server settings of the HTTP transport: `issuers`, `resource`",
        "authorization",
        read=_authorization,
    ),
)

BY_NAME = {key.name: key for key in CONFIG_KEYS}


def unknown_key_message(name: str) -> str:
    """What a key no row describes gets: the closest known key when one is near."""
    return unknown_key(name, sorted(BY_NAME))


def read_section(section: Mapping[str, Any], reading: Reading) -> list[Diagnostic]:
    """Each row's value of ``section`` (or its default) into ``reading.values``; the
    problems, each at its key's pointer."""
    return read_table(CONFIG_KEYS, section, reading, POINTER)


def config_reference_markdown() -> str:
    """The reference of every key as a markdown table (key, type, default, meaning): what
    the docs site prints as its configuration reference."""
    return reference_markdown(CONFIG_KEYS)
