"""Checks of each resource and resource template: its fields, its URI or RFC 6570
template, the JSON Schema typing each template variable, the content file it names, each
revision's Resource / ResourceTemplate definition, duplicate names, URIs and templates,
and what older revisions' clients lose (said once per field, as for tools)."""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from mcp_schemagen.check.schema_checks import check_schema
from mcp_schemagen.check.schema_lint import lint_schema
from mcp_schemagen.check.vocabulary import icon_diagnostics, unknown_annotation, unknown_key
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.load import specs
from mcp_schemagen.load.resource_content import read_content
from mcp_schemagen.naming import python_identifier
from mcp_schemagen.runtime.core.completion import COMPLETE_KEY
from mcp_schemagen.runtime.protocol import BY_NAME
from mcp_schemagen.runtime.protocol.resources import (
    publish_resource,
)
from mcp_schemagen.runtime.resources.table import FILE_KEY, SCHEMA_KEY
from mcp_schemagen.runtime.resources.uri_template import UriTemplate, UriTemplateError
from mcp_schemagen.source import Source

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_STRINGS = "URI template variables are strings"


@cache
def _validator(revision: str, definition: str) -> Any:
    import jsonschema

    document = specs.load(revision).document
    definitions = "$defs" if "$defs" in document else "definitions"
    schema = {**document, "$ref": f"#/{definitions}/{definition}"}
    return jsonschema.validators.validator_for(schema)(schema)


def check_resource(
    source: Source,
    revisions: Sequence[str],
    root: Path,
    accepted: frozenset[str] = frozenset(),
    package_dir: Path | None = None,
) -> list[Diagnostic]:
    definition = source.definition
    if "uri" in definition and "uriTemplate" in definition:
        return [
            error(
                source.file,
                pointer_join(source.pointer, "uriTemplate"),
                "a definition is a resource (uri) or a resource template (uriTemplate), not"
                " both; split it in two",
            )
        ]
    problems = _check_fields(source)
    problems += _check_name(source)
    if source.is_template:
        problems += _check_template(source, accepted)
    else:
        problems += _check_uri(source)
        if FILE_KEY in definition:
            problems += read_content(root, source, package_dir)[1]
    if not problems:
        problems += _check_against_revisions(source, revisions)
    return problems


def _check_fields(source: Source) -> list[Diagnostic]:
    kind = "resource template" if source.is_template else "resource"
    problems = []
    for key in source.definition:
        message = unknown_key(key, kind)
        if message is not None:
            problems.append(error(source.file, pointer_join(source.pointer, key), message))
    annotations = source.definition.get("annotations")
    if isinstance(annotations, dict):
        for key in annotations:
            found = unknown_annotation(key, "resource annotations")
            if found is not None and found[0]:
                where = pointer_join(source.pointer, "annotations", key)
                problems.append(error(source.file, where, found[1]))
    return problems + icon_diagnostics(source.definition, source.file, source.pointer)


def _check_name(source: Source) -> list[Diagnostic]:
    name = source.definition.get("name")
    if isinstance(name, str) and name.strip():
        return []
    return [
        error(
            source.file,
            pointer_join(source.pointer, "name"),
            'a resource needs a "name": a non-empty string',
        )
    ]


def _check_uri(source: Source) -> list[Diagnostic]:
    uri = source.definition.get("uri")
    where = pointer_join(source.pointer, "uri")
    if not isinstance(uri, str) or not _SCHEME.match(uri):
        return [
            error(
                source.file,
                where,
                'a resource needs a "uri": an absolute URI with a scheme, like'
                ' "file:///docs/readme.md" or "app://config"',
            )
        ]
    if any(c.isspace() for c in uri):
        return [error(source.file, where, f"{uri!r} holds white space; percent-encode it (%20)")]
    return []


def parse_template(source: Source) -> UriTemplate | None:
    try:
        return UriTemplate.parse(str(source.definition.get("uriTemplate")))
    except UriTemplateError:
        return None


def _check_template(source: Source, accepted: frozenset[str]) -> list[Diagnostic]:
    text = source.definition.get("uriTemplate")
    where = pointer_join(source.pointer, "uriTemplate")
    if not isinstance(text, str) or not _SCHEME.match(text):
        return [
            error(
                source.file,
                where,
                'a resource template needs a "uriTemplate": an RFC 6570 template of an'
                ' absolute URI, like "file:///logs/{date}"',
            )
        ]
    try:
        template = UriTemplate.parse(text)
    except UriTemplateError as exc:
        return [error(source.file, where, f"{text!r} is not an RFC 6570 URI template: {exc}")]
    if not template.variables:
        return [
            error(
                source.file,
                where,
                f"{text!r} has no variables ({{name}}); a fixed URI is a static resource:"
                ' write it as "uri"',
            )
        ]
    problems: list[Diagnostic] = []
    python_names: dict[str, str] = {}
    for variable in template.names:
        python_name = python_identifier(variable)
        if python_name in python_names:
            problems.append(
                error(
                    source.file,
                    where,
                    f"variables {python_names[python_name]!r} and {variable!r} both become the"
                    f" Python parameter {python_name!r}; rename one of them",
                )
            )
        python_names[python_name] = variable
    problems += _check_complete(source, template.names)
    schemas = source.definition.get(SCHEMA_KEY, {})
    at = pointer_join(source.pointer, SCHEMA_KEY)
    if not isinstance(schemas, dict):
        message = (
            "must be an object: each template variable's name -> the JSON Schema of its"
            ' (string) value, like {"id": {"pattern": "^[0-9]+$"}}'
        )
        return [*problems, error(source.file, at, message)]
    for variable, schema in schemas.items():
        here = pointer_join(at, variable)
        if variable not in template.names:
            guess = difflib.get_close_matches(variable, template.names, n=1)
            hint = (
                f"did you mean {guess[0]!r}?"
                if guess
                else f"its variables: {', '.join(template.names)}"
            )
            problems.append(
                error(source.file, here, f"{variable!r} is not a variable of {text!r}; {hint}")
            )
            continue
        problems += _check_variable_schema(schema, source.file, here, accepted)
    return problems


def _check_complete(source: Source, variables: Sequence[str]) -> list[Diagnostic]:
    """``x-mcp-codegen-complete``: the variables that have a completion handler."""
    if COMPLETE_KEY not in source.definition:
        return []
    marked = source.definition[COMPLETE_KEY]
    at = pointer_join(source.pointer, COMPLETE_KEY)
    if not isinstance(marked, list):
        message = (
            "must be a list of the template's variables that get a completion handler in"
            f' handlers.py, like ["{variables[0] if variables else "id"}"]'
        )
        return [error(source.file, at, message)]
    problems = []
    for index, variable in enumerate(marked):
        here = pointer_join(at, index)
        if not isinstance(variable, str) or variable not in variables:
            guess = difflib.get_close_matches(str(variable), variables, n=1)
            hint = (
                f"did you mean {guess[0]!r}?" if guess else f"its variables: {', '.join(variables)}"
            )
            problems.append(
                error(
                    source.file, here, f"{variable!r} is not a variable of {source.key!r}; {hint}"
                )
            )
        elif marked.index(variable) != index:
            problems.append(error(source.file, here, f"{variable!r} is listed twice"))
    return problems


def _check_variable_schema(
    schema: Any, file: str, where: str, accepted: frozenset[str]
) -> list[Diagnostic]:
    if not isinstance(schema, dict):
        return [error(file, where, f"must be a JSON Schema object describing a string; {_STRINGS}")]
    problems = check_schema(schema, file, where) + lint_schema(schema, file, where, accepted)
    if schema.get("type", "string") != "string":
        problems.append(
            error(
                file,
                pointer_join(where, "type"),
                f'must be "string" (or left out): {_STRINGS}; constrain the text with enum,'
                " pattern, minLength or maxLength",
            )
        )
    enum = schema.get("enum")
    if isinstance(enum, list):
        problems += [
            error(
                file,
                pointer_join(where, "enum", i),
                f"enum value {v!r} is not a string; {_STRINGS}",
            )
            for i, v in enumerate(enum)
            if not isinstance(v, str)
        ]
    return problems


def _check_against_revisions(source: Source, revisions: Sequence[str]) -> list[Diagnostic]:
    from jsonschema.exceptions import best_match

    kind = "ResourceTemplate" if source.is_template else "Resource"
    problems: set[Diagnostic] = set()
    reported: set[tuple[str, str]] = set()
    for revision in reversed(revisions):
        form = publish_resource(source.definition, BY_NAME[revision])[0]
        for failure in _validator(revision, kind).iter_errors(form):
            best = best_match([failure])
            where = pointer_join(source.pointer, *best.absolute_path)
            if (where, best.message) in reported:
                continue
            reported.add((where, best.message))
            scope = "" if revision == revisions[-1] else f" (as published to {revision} clients)"
            problems.add(
                error(source.file, where, f"not a valid {revision} {kind}{scope}: {best.message}")
            )
    return sorted(problems)


def duplicate_resources(sources: Sequence[Source]) -> list[Diagnostic]:
    """Two resources with one URI, two templates with one text, or one name twice."""
    problems = []
    for field, what in (("uri", "URI"), ("uriTemplate", "URI template"), ("name", "name")):
        seen: dict[str, list[Source]] = defaultdict(list)
        for source in sources:
            value = source.definition.get(field)
            if isinstance(value, str):
                seen[value].append(source)
        for value, same in seen.items():
            first = same[0]
            problems += [
                error(
                    later.file,
                    pointer_join(later.pointer, field),
                    f"resource {what} {value!r} is already used at {first.file}#"
                    f"{pointer_join(first.pointer, field)}; each must be unique",
                )
                for later in same[1:]
            ]
    return problems


def resource_omission_warnings(
    sources: Sequence[Source], revisions: Sequence[str], accepted: Sequence[str] = ()
) -> list[Diagnostic]:
    """One warning per field and group of revisions that leave it out (``accept-omitted``
    silences a field; annotation fields are named ``annotations/lastModified``)."""
    skip = frozenset(accepted)
    where: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
    for source in sources:
        lost: dict[str, list[str]] = {}
        for name in revisions:
            for omission in publish_resource(source.definition, BY_NAME[name])[1]:
                if omission.field not in skip:
                    lost.setdefault(omission.field, []).append(name)
        for field, names in lost.items():
            pointer = pointer_join(source.pointer, *field.split("/"))
            where.setdefault((field, tuple(names)), []).append((source.file, pointer))
    problems = []
    for (field, group), places in where.items():
        places.sort()
        (file, pointer), *others = places
        subject = (
            f"protocol revision {group[0]} does not define this; its clients"
            if len(group) == 1
            else f"protocol revisions {', '.join(group)} do not define this; their clients"
        )
        count = (
            f" (so do {len(others)} other resources, e.g. {others[0][0]}#{others[0][1]})"
            if others
            else ""
        )
        problems.append(
            warning(
                file,
                pointer,
                f"{subject} receive the resource without {field}{count}; to silence:"
                f' accept-omitted = ["{field}"] in [tool.mcp-codegen]',
            )
        )
    return problems
