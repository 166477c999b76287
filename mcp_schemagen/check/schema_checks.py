"""inputSchema and outputSchema: dialect, metaschema, references, and that they compile."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

import jsonschema_rs

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.runtime.validation import compile_validator
from mcp_schemagen.schema.walk import children

DRAFT7 = "draft7"
DRAFT202012 = "2020-12"
_DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": DRAFT202012,
    "https://json-schema.org/draft/2020-12/schema#": DRAFT202012,
    "http://json-schema.org/draft-07/schema#": DRAFT7,
    "http://json-schema.org/draft-07/schema": DRAFT7,
}


@cache
def _meta_validator(dialect: str) -> Any:
    # python-jsonschema words the messages; it is imported only for a schema that fails.
    import jsonschema

    if dialect == DRAFT7:
        return jsonschema.Draft7Validator(jsonschema.Draft7Validator.META_SCHEMA)
    return jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)


def dialect_of(schema: Any) -> str | None:
    """The schema's dialect; None when ``$schema`` names one we do not support."""
    if not isinstance(schema, dict) or "$schema" not in schema:
        return DRAFT202012
    return _DIALECTS.get(schema["$schema"]) if isinstance(schema["$schema"], str) else None


def check_schema(schema: Any, file: str, pointer: str) -> list[Diagnostic]:
    dialect = dialect_of(schema)
    if dialect is None:
        return [
            error(
                file,
                pointer_join(pointer, "$schema"),
                f"unsupported JSON Schema dialect {schema.get('$schema')!r}; use "
                '"https://json-schema.org/draft/2020-12/schema" (the default) or '
                '"http://json-schema.org/draft-07/schema#"',
            )
        ]
    problems = _metaschema_problems(schema, dialect, file, pointer)
    if problems:
        return problems
    problems = list(_reference_problems(schema, file, pointer))
    if problems:
        return problems
    return _compile_problems(schema, file, pointer)


# Keywords datamodel-code-generator reads as instructions: imports, base classes, field
# names. Type generation drops every non-standard keyword (type_shield.TYPE_KEYWORDS); these
# get a warning, since their author expects an effect they will not have.
GENERATOR_INSTRUCTIONS = frozenset(
    {
        "customTypePath",
        "customBasePath",
        "default_factory",
        "x-python-type",
        "x-python-import",
        "x-python-union-branch",
        "x-python-unserializable",
        "x-is-base-class",
        "x-is-classvar",
        "x-enum-varnames",
        "x-enumNames",
        "x-datamodel-code-generator-field-name",
    }
)


def generator_instruction_warnings(schema: Any, file: str, pointer: str) -> list[Diagnostic]:
    return [
        warning(
            file,
            pointer_join(node.pointer, key),
            f"{key!r} is an instruction to datamodel-code-generator (imports, base classes, "
            "names); mcp-codegen ignores it when generating Python types, because schema text "
            "never chooses what generated code imports. Clients still receive it as written",
        )
        for node in _nodes(schema, pointer, "", schema)
        for key in node.schema
        if key in GENERATOR_INSTRUCTIONS
    ]


def _metaschema_problems(schema: Any, dialect: str, file: str, pointer: str) -> list[Diagnostic]:
    # jsonschema-rs answers "valid" in linear time (python-jsonschema took 18 s on a
    # 4,000-property schema); only a schema it rejects is walked again for the messages.
    if jsonschema_rs.meta.is_valid(schema):
        return []
    import jsonschema.exceptions

    found = []
    for failure in _meta_validator(dialect).iter_errors(schema):
        best = jsonschema.exceptions.best_match([failure])
        where = pointer_join(pointer, *best.absolute_path)
        found.append(error(file, where, f"not a valid {dialect} JSON Schema: {best.message}"))
    return sorted(set(found))


def _compile_problems(schema: Any, file: str, pointer: str) -> list[Diagnostic]:
    try:
        compile_validator(schema)
    except Exception as exc:  # jsonschema-rs reports bad regexes and references this way
        message = str(exc).split("\n", 1)[0]
        path = list(getattr(exc, "instance_path", []) or [])
        return [error(file, pointer_join(pointer, *path), f"schema does not compile: {message}")]
    return []


@dataclass(frozen=True)
class _Node:
    schema: dict[str, Any]
    pointer: str
    base: str  # base URI in force at this node
    resource: dict[str, Any]  # the schema resource (nearest $id, or the root) holding it


def _nodes(node: Any, pointer: str, base: str, resource: Any) -> Iterator[_Node]:
    """Every subschema object, with the base URI and resource each is read against. The
    values of unknown keywords are searched too: a reference a validator might follow
    from there is checked all the same."""
    if not isinstance(node, dict):
        return
    if isinstance(node.get("$id"), str):
        base, resource = urljoin(base, node["$id"]), node
    yield _Node(node, pointer, base, resource)
    for path, child in children(node, unknown=True):
        yield from _nodes(child, pointer_join(pointer, *path), base, resource)


def _resolve_pointer(root: Any, fragment: str) -> bool:
    node = root
    for raw in fragment.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def _reference_problems(schema: Any, file: str, pointer: str) -> Iterator[Diagnostic]:
    root_base = schema.get("$id", "") if isinstance(schema, dict) else ""
    nodes = list(_nodes(schema, pointer, root_base if isinstance(root_base, str) else "", schema))
    internal = {urldefrag(n.base).url for n in nodes if isinstance(n.schema.get("$id"), str)}
    anchors = {
        n.schema[k]
        for n in nodes
        for k in ("$anchor", "$dynamicAnchor")
        if isinstance(n.schema.get(k), str)
    }
    for node in nodes:
        for keyword in ("$ref", "$dynamicRef"):
            reference = node.schema.get(keyword)
            if isinstance(reference, str):
                yield from _check_reference(
                    keyword, reference, node, schema, internal, anchors, file
                )


def _check_reference(
    keyword: str,
    reference: str,
    node: _Node,
    schema: Any,
    internal: set[str],
    anchors: set[Any],
    file: str,
) -> Iterator[Diagnostic]:
    where = pointer_join(node.pointer, keyword)
    target, fragment = urldefrag(urljoin(node.base, reference))
    fragment = unquote(fragment)
    if target and target not in internal:
        kind = (
            "network URI"
            if target.startswith(("http://", "https://"))
            else "file or external document"
        )
        yield error(
            file,
            where,
            f"{keyword} {reference!r} points to a {kind}; references are never fetched or "
            'read. Copy the referenced schema under "$defs" and use "#/$defs/NAME"',
        )
        return
    document = node.resource if not target or target == urldefrag(node.base).url else schema
    if fragment.startswith("/") or fragment == "":
        if not _resolve_pointer(document, fragment):
            yield error(file, where, f"{keyword} {reference!r} does not resolve inside this schema")
    elif fragment not in anchors:
        yield error(
            file, where, f"{keyword} {reference!r} names an anchor this schema does not define"
        )
