"""The ``x-mcp-header`` constraints of 2026-07-28 (Streamable HTTP, "Custom Headers from
Tool Parameters"): a client must drop a tool that breaks them, so the build reports each
violation as an error at its place in the inputSchema."""

from __future__ import annotations

import re
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join

KEYWORD = "x-mcp-header"
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 field-name: 1*tchar
_TYPES = ("string", "integer", "boolean")


def check_mcp_headers(schema: Any, file: str, pointer: str) -> list[Diagnostic]:
    """Every ``x-mcp-header`` in ``schema`` (an inputSchema at ``file#pointer``): a token,
    unique case-insensitively, on an integer, string or boolean property reached from the
    root through ``properties`` alone."""
    problems: list[Diagnostic] = []
    seen: dict[str, str] = {}

    def visit(node: Any, where: str, reachable: bool) -> None:
        if isinstance(node, list):
            for index, item in enumerate(node):
                visit(item, pointer_join(where, index), False)
            return
        if not isinstance(node, dict):
            return
        if KEYWORD in node:
            problems.extend(_check_one(node, file, pointer_join(where, KEYWORD), reachable, seen))
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, child in value.items():
                    visit(child, pointer_join(where, key, name), reachable)
            elif key not in ("const", "enum", "default", "examples", KEYWORD):
                visit(value, pointer_join(where, key), False)

    visit(schema, pointer, True)
    return problems


def _check_one(
    node: dict[str, Any], file: str, where: str, reachable: bool, seen: dict[str, str]
) -> list[Diagnostic]:
    value = node[KEYWORD]
    if not reachable:
        return [
            error(
                file,
                where,
                f"{KEYWORD} is allowed only on a property reached from the root through "
                '"properties" alone (not through items, oneOf/anyOf/allOf/not, if/then/else '
                "or $ref); move it there or remove it, or HTTP clients drop this tool",
            )
        ]
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        return [
            error(
                file,
                where,
                f"{KEYWORD} {value!r} must be a non-empty HTTP field-name token (letters, "
                'digits and !#$%&\'*+-.^_`|~), e.g. "Region"',
            )
        ]
    problems = []
    kind = node.get("type")
    if kind not in _TYPES:
        problems.append(
            error(
                file,
                where,
                f"{KEYWORD} needs a property of type integer, string or boolean (found "
                f"{kind!r}); numbers and structured values cannot be mirrored into a header",
            )
        )
    first = seen.setdefault(value.lower(), where)
    if first != where:
        problems.append(
            error(
                file,
                where,
                f"{KEYWORD} {value!r} is already used at {first} (names are case-insensitive)",
            )
        )
    return problems
