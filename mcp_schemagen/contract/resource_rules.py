"""The rules for static resources (paired by uri, what callers read them by) and resource
templates (paired by name): a uri gone, a uriTemplate old URIs no longer match, a
variable's x-mcp-codegen-schema narrowed, a mimeType changed. The content a file gives
(x-mcp-codegen-file) is not part of the contract."""

from __future__ import annotations

from typing import Any

from mcp_schemagen.contract.changes import Category, Change
from mcp_schemagen.contract.readers import Reader
from mcp_schemagen.contract.snapshot import Definition
from mcp_schemagen.contract.subschema import Comparer
from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.runtime.resources.table import FILE_KEY, SCHEMA_KEY
from mcp_schemagen.runtime.resources.uri_template import UriTemplate, UriTemplateError

__all__ = ["FILE_KEY", "added", "changed", "removed", "template_added", "template_changed"]

_QUERY = ("?", "&")  # the operators whose variables are read by name, in any order
# Reserved expansions keep a comma in a value: a variable added after one would take what
# followed the comma, so old URIs would match with other values.
_RESERVED = ("+", "#")


def removed(old: Definition, renamed_to: str | None) -> list[Change]:
    uri = old.definition.get("uri")
    said = f"resource {uri!r} removed: resources/read of it fails"
    if renamed_to:
        said += f" (its uri changed to {renamed_to!r}? same name or content file)"
    return [Change(old.file, old.pointer, Category.BREAKING_CALLERS, said)]


def added(new: Definition) -> list[Change]:
    said = f"resource {new.definition.get('uri')!r} added"
    return [Change(new.file, new.pointer, Category.COMPATIBLE, said)]


def changed(old: Definition, new: Definition) -> list[Change]:
    return _mime_type(old, new)


def template_removed(old: Definition, renamed_to: str | None) -> list[Change]:
    if renamed_to:
        # Callers read URIs, never a template's name: the same uriTemplate reads the same.
        said = f"resource template {old.name!r} renamed to {renamed_to!r} (same uriTemplate)"
        return [Change(old.file, old.pointer, Category.COMPATIBLE, said)]
    said = f"resource template {old.name!r} removed: resources/read of its URIs fails"
    return [Change(old.file, old.pointer, Category.BREAKING_CALLERS, said)]


def template_added(new: Definition) -> list[Change]:
    said = f"resource template {new.name!r} added"
    return [Change(new.file, new.pointer, Category.COMPATIBLE, said)]


def template_changed(old: Definition, new: Definition) -> list[Change]:
    return [*_uri_template(old, new), *_variable_schemas(old, new), *_mime_type(old, new)]


def _mime_type(old: Definition, new: Definition) -> list[Change]:
    before, after = old.definition.get("mimeType"), new.definition.get("mimeType")
    if before == after:
        return []
    said = f"mimeType {before!r} → {after!r}: readers of the contents get another type"
    at = pointer_join(new.pointer, "mimeType")
    return [Change(new.file, at, Category.BREAKING_RESULTS, said)]


def _parts(template: UriTemplate) -> tuple[list[Any], dict[str, str]]:
    """The template without its query expressions (literals and path expressions, each
    variable by name, operator, explode and prefix) and its query variables by operator."""
    path: list[Any] = []
    queries: dict[str, str] = {}
    for part in template._parts:
        if isinstance(part, str):
            if part:
                path.append(part)
        elif part[0] in _QUERY:
            queries.update({v.name: part[0] for v in part[1]})
        else:
            path.append((part[0], tuple((v.name, v.explode, v.prefix) for v in part[1])))
    return path, queries


def _appended(old: list[Any], new: list[Any]) -> tuple[list[Any], list[str]]:
    """The new path without the variables it adds at the end of an old expression
    (`{/a}` → `{/a,b}`), and their names. An old URI still matches the new template with the
    same values: an undefined variable expands to nothing. Not after a reserved expansion
    or an exploded variable, whose values may hold the separator."""
    if len(old) != len(new):
        return new, []
    trimmed: list[Any] = []
    added: list[str] = []
    for before, after in zip(old, new, strict=True):
        extra = (
            () if isinstance(before, str) or isinstance(after, str) else after[1][len(before[1]) :]
        )
        if (
            not extra
            or before[0] != after[0]
            or before[0] in _RESERVED
            or any(explode for _, explode, _ in before[1])
        ):
            trimmed.append(after)
            continue
        trimmed.append((after[0], after[1][: len(before[1])]))
        added += [name for name, *_ in extra]
    return trimmed, added


def _explained(old: list[Any], new: list[Any], gone: set[str]) -> bool:
    """The paths differ only where a variable was renamed, which is said already (two
    variables swapped are not: old URIs still match, with the values exchanged)."""
    if [_shape(p) for p in old] != [_shape(p) for p in new]:
        return False
    names = zip(_names(old), _names(new), strict=True)
    return all(before == after or before in gone for before, after in names)


def _shape(part: Any) -> Any:
    """A path part without its variables' names: what a URI's shape depends on."""
    return part if isinstance(part, str) else (part[0], tuple(v[1:] for v in part[1]))


def _names(path: list[Any]) -> list[str]:
    return [v[0] for part in path if not isinstance(part, str) for v in part[1]]


def _uri_template(old: Definition, new: Definition) -> list[Change]:
    before, after = old.definition.get("uriTemplate"), new.definition.get("uriTemplate")
    if before == after:
        return []
    at = pointer_join(new.pointer, "uriTemplate")
    try:
        old_path, old_queries = _parts(UriTemplate.parse(str(before)))
        new_path, new_queries = _parts(UriTemplate.parse(str(after)))
    except UriTemplateError as exc:
        said = f"uriTemplate {before!r} → {after!r}: not compared ({exc})"
        return [Change(new.file, at, Category.UNKNOWN, said)]
    changes: list[Change] = []
    old_names = {name for part in old_path if isinstance(part, tuple) for name, *_ in part[1]}
    new_names = {name for part in new_path if isinstance(part, tuple) for name, *_ in part[1]}
    gone = (old_names | old_queries.keys()) - (new_names | new_queries.keys())
    for name in sorted(gone):
        said = f"variable {name!r} removed or renamed from the uriTemplate: URIs that set it"
        said += " no longer match, and typed clients pass it by name"
        changes.append(Change(new.file, at, Category.BREAKING_CALLERS, said))
    for name in sorted(old_queries.keys() & new_queries.keys()):
        if old_queries[name] != new_queries[name]:
            said = f"query variable {name!r} moved from {{{old_queries[name]}}} to "
            said += f"{{{new_queries[name]}}}: URIs that set it no longer match"
            changes.append(Change(new.file, at, Category.BREAKING_CALLERS, said))
    trimmed, appended = _appended(old_path, new_path)
    if not _explained(old_path, trimmed, gone):
        said = f"uriTemplate {before!r} → {after!r}: its literal text or path variables"
        said += " changed, so URIs of the old template no longer match"
        changes.append(Change(new.file, at, Category.BREAKING_CALLERS, said))
    else:
        for name in appended:
            said = f"optional variable {name!r} added at the end of an expression: URIs "
            said += "without it still match, with the same values"
            changes.append(Change(new.file, at, Category.COMPATIBLE, said))
    for name in sorted(new_queries.keys() - old_queries.keys() - old_names):
        said = f"optional query variable {name!r} added: URIs without it still match"
        changes.append(Change(new.file, at, Category.COMPATIBLE, said))
    return changes


def _schemas(definition: dict[str, Any]) -> dict[str, Any]:
    schemas = definition.get(SCHEMA_KEY)
    return schemas if isinstance(schemas, dict) else {}


def _variable_schemas(old: Definition, new: Definition) -> list[Change]:
    """A variable's schema is compared as an input: what the server accepts in a URI."""
    before, after = _schemas(old.definition), _schemas(new.definition)
    try:
        old_names = set(UriTemplate.parse(str(old.definition.get("uriTemplate"))).names)
        new_names = set(UriTemplate.parse(str(new.definition.get("uriTemplate"))).names)
    except UriTemplateError:
        return []  # said by the uriTemplate rule
    changes: list[Change] = []
    for name in sorted(old_names & new_names):
        # No schema is any string: a variable matched from a URI is a string.
        first = before.get(name, {"type": "string"})
        second = after.get(name, {"type": "string"})
        where = pointer_join(new.pointer, SCHEMA_KEY, name)
        comparer = Comparer(first, second, where, Reader.SERVER)
        changes += Reader.SERVER.changes(new.file, comparer.compare(first, second, where))
    return changes
