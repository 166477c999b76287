"""The scopes a tool declares its call needs, checked at build time.

A tool declares them in ``_meta`` under ``"io.mcp-codegen/scopes"`` (a list of OAuth
scope tokens); the server's authorization layer (runtime/auth/) refuses a call whose
token lacks one with 403 insufficient_scope. ``_meta`` is published with the tool, so
clients of revisions that define it can see what a call needs before making it.
"""

from __future__ import annotations

import difflib
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.runtime.auth.scopes import SCOPES_KEY
from mcp_schemagen.runtime.auth.settings import AuthConfigError, check_scope_token
from mcp_schemagen.runtime.protocol import BY_NAME
from mcp_schemagen.source import Source

_EXAMPLE = f'"_meta": {{"{SCOPES_KEY}": ["notes:read"]}}'


def check_scopes(source: Source, revisions: tuple[str, ...]) -> list[Diagnostic]:
    meta = source.definition.get("_meta")
    if not isinstance(meta, dict):
        return []
    problems = _near_misses(source, meta)
    if SCOPES_KEY not in meta:
        return problems
    where = pointer_join(source.pointer, "_meta", SCOPES_KEY)
    value: Any = meta[SCOPES_KEY]
    if not isinstance(value, list) or not value:
        return [
            *problems,
            error(source.file, where, f"must be a non-empty list of scopes, like {_EXAMPLE}"),
        ]
    seen: set[str] = set()
    for index, scope in enumerate(value):
        at = pointer_join(where, str(index))
        if not isinstance(scope, str):
            problems.append(
                error(source.file, at, f"a scope is a string, got {type(scope).__name__}")
            )
            continue
        try:
            check_scope_token("scope", scope)
        except AuthConfigError as exc:
            problems.append(error(source.file, at, str(exc).removeprefix("scope ")))
            continue
        if scope in seen:
            problems.append(error(source.file, at, f"scope {scope!r} is listed twice"))
        seen.add(scope)
    if not any("_meta" in BY_NAME[r].tool_fields for r in revisions):
        problems.append(
            error(
                source.file,
                where,
                "none of the targeted revisions publishes a tool's _meta, so the server "
                "cannot read these scopes; target 2025-06-18 or newer",
            )
        )
    return problems


def _near_misses(source: Source, meta: dict[str, Any]) -> list[Diagnostic]:
    """A key that looks like the scopes key but is not: the declaration would be lost and
    the tool callable with the base scopes alone."""
    problems = []
    for key in meta:
        if key == SCOPES_KEY or "scope" not in key.lower():
            continue
        if difflib.SequenceMatcher(None, key, SCOPES_KEY).ratio() > 0.6 or key.lower() in (
            "scopes",
            "scope",
            "requiredscopes",
        ):
            problems.append(
                warning(
                    source.file,
                    pointer_join(source.pointer, "_meta", key),
                    f"{key!r} declares no scopes; did you mean {SCOPES_KEY!r}?",
                )
            )
    return problems
