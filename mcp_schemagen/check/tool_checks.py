"""Checks of each tool definition: its name, its fields, and the Tool definition of every
protocol revision the project targets."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import jsonschema_rs

from mcp_schemagen.check.header_checks import check_mcp_headers
from mcp_schemagen.check.schema_checks import check_schema, generator_instruction_warnings
from mcp_schemagen.check.schema_lint import lint_schema
from mcp_schemagen.check.scope_checks import check_scopes
from mcp_schemagen.check.task_checks import check_task_fields
from mcp_schemagen.check.vocabulary import icon_diagnostics, unknown_annotation, unknown_key
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.load import specs
from mcp_schemagen.load.http_call import HTTP_KEY, http_problems
from mcp_schemagen.load.published import Published
from mcp_schemagen.source import Source

# SEP-986, matched in full: re.fullmatch, not `$`, so "name\n" is caught.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")


def _tool_schema(revision: str) -> dict[str, Any]:
    """The revision's schema document, rooted at its Tool definition."""
    document = specs.load(revision).document
    definitions = "$defs" if "$defs" in document else "definitions"
    return {**document, "$ref": f"#/{definitions}/Tool"}


@cache
def _tool_validator(revision: str) -> Any:
    # python-jsonschema words the messages; it is imported only for a tool that fails.
    import jsonschema

    schema = _tool_schema(revision)
    return jsonschema.validators.validator_for(schema)(schema)


@cache
def _fast_tool_validator(revision: str) -> Any:
    return jsonschema_rs.validator_for(_tool_schema(revision), validate_formats=False)


def _is_valid_tool(revision: str, form: dict[str, Any]) -> bool:
    """jsonschema-rs's quick yes (milliseconds for a hundred tools); a no, or a value it
    cannot take, goes to python-jsonschema, which words the messages."""
    try:
        return bool(_fast_tool_validator(revision).is_valid(form))
    except (ValueError, TypeError, OverflowError):
        return False


def check_name(source: Source) -> list[Diagnostic]:
    name = source.definition.get("name")
    where = pointer_join(source.pointer, "name")
    if not isinstance(name, str):
        return [error(source.file, where, 'a tool needs a "name" string')]
    if not _TOOL_NAME.fullmatch(name):
        return [
            error(
                source.file,
                where,
                f"tool name {name!r} must be 1 to 128 characters of A-Z a-z 0-9 _ - . "
                "(no spaces, newlines or other characters)",
            )
        ]
    return []


def check_fields(source: Source) -> list[Diagnostic]:
    """Each key against the vocabulary (a tool publishes no ``x-`` keys: each is an
    error), and each annotation (a misspelt hint would never reach a client)."""
    problems = []
    for key in source.definition:
        if key == HTTP_KEY:  # the HTTP call of an imported operation, never published
            base = pointer_join(source.pointer, key)
            for parts, problem in http_problems(source.definition[key]):
                problems.append(error(source.file, pointer_join(base, *parts), problem))
            continue
        message = unknown_key(key, "tool", extensions=False)
        if message is not None:
            problems.append(error(source.file, pointer_join(source.pointer, key), message))
    annotations = source.definition.get("annotations")
    if isinstance(annotations, dict):
        for key in annotations:
            found = unknown_annotation(key, "tool annotations")
            if found is not None:
                is_error, message = found
                where = pointer_join(source.pointer, "annotations", key)
                make = error if is_error else warning
                problems.append(make(source.file, where, message))
    problems += icon_diagnostics(source.definition, source.file, source.pointer)
    return problems


def check_against_revisions(source: Source, published: Published) -> list[Diagnostic]:
    """Each revision's clients receive a definition valid for that revision (what older
    clients lose is reported by mcp_schemagen.check.omissions, for all tools at once)."""
    forms = published.forms
    revisions = tuple(forms)
    problems: list[Diagnostic] = []
    reported: set[tuple[str, str]] = set()
    newest = revisions[-1]
    for revision in reversed(revisions):
        if _is_valid_tool(revision, forms[revision]):
            continue
        from jsonschema.exceptions import best_match

        for failure in _tool_validator(revision).iter_errors(forms[revision]):
            best = best_match([failure])
            where = pointer_join(source.pointer, *best.absolute_path)
            if (where, best.message) in reported:
                continue  # the same fault, already reported for a newer revision
            reported.add((where, best.message))
            scope = "" if revision == newest else f" (as published to {revision} clients)"
            problems.append(
                error(source.file, where, f"not a valid {revision} Tool{scope}: {best.message}")
            )
    return sorted(set(problems))


def check_schemas(source: Source, accepted: frozenset[str] = frozenset()) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    for key in ("inputSchema", "outputSchema"):
        if key in source.definition:
            value: Any = source.definition[key]
            where = pointer_join(source.pointer, key)
            problems.extend(check_schema(value, source.file, where))
            problems.extend(generator_instruction_warnings(value, source.file, where))
            problems.extend(lint_schema(value, source.file, where, accepted))
    return problems


def check_tool(
    source: Source, published: Published, accepted: frozenset[str] = frozenset()
) -> list[Diagnostic]:
    """``accepted``: the unknown schema keywords the project accepts (``accept-keywords``)."""
    tasks = check_task_fields(source)
    problems = check_name(source) + check_fields(source) + tasks
    # A bad taskSupport is reported once, by the task checks (with a likely spelling).
    told = {d.pointer for d in tasks}
    problems += [d for d in check_against_revisions(source, published) if d.pointer not in told]
    problems += check_schemas(source, accepted)
    problems += check_scopes(source, tuple(published.forms))  # authorization: runtime/auth/
    if "inputSchema" in source.definition:
        where = pointer_join(source.pointer, "inputSchema")
        problems += check_mcp_headers(source.definition["inputSchema"], source.file, where)
    return problems
