"""Checks of each prompt definition: its name and fields, each revision's Prompt
definition, its arguments (names, duplicates, the JSON Schema typing each), duplicate
prompt names, and what older revisions' clients lose (said once per field)."""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from functools import cache
from typing import Any

from mcp_schemagen.check.schema_checks import check_schema
from mcp_schemagen.check.schema_lint import lint_schema
from mcp_schemagen.check.vocabulary import icon_diagnostics, unknown_key
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.load import specs
from mcp_schemagen.naming import python_identifier
from mcp_schemagen.runtime.core.completion import COMPLETE_KEY
from mcp_schemagen.runtime.prompts.table import SCHEMA_KEY
from mcp_schemagen.runtime.protocol import BY_NAME
from mcp_schemagen.source import Source

MAX_NAME = 128
# Keys of a string schema that mean nothing for a string (or contradict it): a typo of the
# author's, since prompt arguments are strings on the wire in every revision.
_TYPE_HINT = "prompt arguments are strings on the wire in every revision"


@cache
def _prompt_validator(revision: str) -> Any:
    import jsonschema

    document = specs.load(revision).document
    definitions = "$defs" if "$defs" in document else "definitions"
    schema = {**document, "$ref": f"#/{definitions}/Prompt"}
    return jsonschema.validators.validator_for(schema)(schema)


def published_forms(definition: dict[str, Any], revisions: Sequence[str]) -> dict[str, Any]:
    return {name: BY_NAME[name].publish_prompt(definition)[0] for name in revisions}


def check_prompt(
    source: Source, revisions: Sequence[str], accepted: frozenset[str] = frozenset()
) -> list[Diagnostic]:
    problems = _check_name(source) + _check_fields(source)
    problems += _check_arguments(source, accepted)
    if not problems:
        problems += _check_against_revisions(source, revisions)
    return problems


def _check_name(source: Source) -> list[Diagnostic]:
    name = source.definition.get("name")
    where = pointer_join(source.pointer, "name")
    if not isinstance(name, str) or not name:
        return [error(source.file, where, 'a prompt needs a "name": a non-empty string')]
    if len(name) > MAX_NAME or any(unicodedata.category(c)[0] in "CZ" for c in name):
        return [
            error(
                source.file,
                where,
                f"prompt name {name!r} must be 1 to {MAX_NAME} printable characters without"
                " spaces (clients show it and send it back in prompts/get)",
            )
        ]
    return []


def _check_fields(source: Source) -> list[Diagnostic]:
    problems = []
    for key in source.definition:
        message = unknown_key(key, "prompt", extensions=False)
        if message is not None:
            problems.append(error(source.file, pointer_join(source.pointer, key), message))
    return problems + icon_diagnostics(source.definition, source.file, source.pointer)


def _check_arguments(source: Source, accepted: frozenset[str]) -> list[Diagnostic]:
    arguments = source.definition.get("arguments", [])
    where = pointer_join(source.pointer, "arguments")
    if not isinstance(arguments, list):
        return [error(source.file, where, "arguments must be a list of argument objects")]
    problems: list[Diagnostic] = []
    names: dict[str, int] = {}
    python_names: dict[str, str] = {}
    for index, argument in enumerate(arguments):
        at = pointer_join(where, index)
        if not isinstance(argument, dict):
            problems.append(error(source.file, at, "an argument must be an object with a name"))
            continue
        for key in argument:
            message = unknown_key(key, "prompt argument")
            if message is not None:
                problems.append(error(source.file, pointer_join(at, key), message))
        name = argument.get("name")
        if not isinstance(name, str) or not name:
            problems.append(
                error(source.file, pointer_join(at, "name"), 'an argument needs a "name" string')
            )
            continue
        if name in names:
            problems.append(
                error(
                    source.file,
                    pointer_join(at, "name"),
                    f"argument {name!r} is already declared at {source.file}#"
                    f"{pointer_join(where, names[name], 'name')}; argument names must be unique",
                )
            )
            continue
        names[name] = index
        python_name = python_identifier(name)
        if python_name in python_names:
            problems.append(
                error(
                    source.file,
                    pointer_join(at, "name"),
                    f"argument {name!r} and argument {python_names[python_name]!r} both become"
                    f" the Python parameter {python_name!r}; rename one of them",
                )
            )
        python_names[python_name] = name
        if "required" in argument and not isinstance(argument["required"], bool):
            problems.append(
                error(source.file, pointer_join(at, "required"), "required must be true or false")
            )
        if COMPLETE_KEY in argument and not isinstance(argument[COMPLETE_KEY], bool):
            problems.append(
                error(
                    source.file,
                    pointer_join(at, COMPLETE_KEY),
                    "must be true (a completion handler for this argument in handlers.py)"
                    " or false (complete from its schema's enum)",
                )
            )
        if SCHEMA_KEY in argument:
            problems += _check_argument_schema(
                argument[SCHEMA_KEY], source.file, pointer_join(at, SCHEMA_KEY), accepted
            )
    return problems


def _check_argument_schema(
    schema: Any, file: str, where: str, accepted: frozenset[str]
) -> list[Diagnostic]:
    if not isinstance(schema, dict):
        return [
            error(file, where, f"must be a JSON Schema object describing a string; {_TYPE_HINT}")
        ]
    problems = check_schema(schema, file, where) + lint_schema(schema, file, where, accepted)
    kind = schema.get("type", "string")
    if kind != "string":
        problems.append(
            error(
                file,
                pointer_join(where, "type"),
                f'must be "string" (or left out): {_TYPE_HINT}; constrain the text with enum,'
                " pattern, minLength or maxLength",
            )
        )
    enum = schema.get("enum")
    if isinstance(enum, list):
        for index, value in enumerate(enum):
            if not isinstance(value, str):
                problems.append(
                    error(
                        file,
                        pointer_join(where, "enum", index),
                        f"enum value {value!r} is not a string; {_TYPE_HINT}",
                    )
                )
    return problems


def _check_against_revisions(source: Source, revisions: Sequence[str]) -> list[Diagnostic]:
    from jsonschema.exceptions import best_match

    problems: set[Diagnostic] = set()
    reported: set[tuple[str, str]] = set()
    newest = revisions[-1]
    forms = published_forms(source.definition, revisions)
    for revision in reversed(revisions):
        for failure in _prompt_validator(revision).iter_errors(forms[revision]):
            best = best_match([failure])
            where = pointer_join(source.pointer, *best.absolute_path)
            if (where, best.message) in reported:
                continue
            reported.add((where, best.message))
            scope = "" if revision == newest else f" (as published to {revision} clients)"
            problems.add(
                error(source.file, where, f"not a valid {revision} Prompt{scope}: {best.message}")
            )
    return sorted(problems)


def duplicate_prompt_names(sources: Sequence[Source]) -> list[Diagnostic]:
    by_name: dict[str, list[Source]] = defaultdict(list)
    for source in sources:
        if isinstance(source.definition.get("name"), str):
            by_name[source.definition["name"]].append(source)
    return [
        error(
            later.file,
            pointer_join(later.pointer, "name"),
            f"prompt name {name!r} is already used at {same[0].file}#{same[0].pointer}; "
            "prompt names must be unique (case-sensitive)",
        )
        for name, same in by_name.items()
        for later in same[1:]
    ]


def prompt_omission_warnings(
    sources: Sequence[Source], revisions: Sequence[str], accepted: Sequence[str] = ()
) -> list[Diagnostic]:
    """One warning per field and group of revisions that leave it out (``accept-omitted``
    silences a field, as for tools; argument fields are named ``arguments/title``)."""
    skip = frozenset(accepted)
    where: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
    for source in sources:
        lost: dict[str, list[str]] = {}
        for name in revisions:
            for omission in BY_NAME[name].publish_prompt(source.definition)[1]:
                if omission.field not in skip:
                    lost.setdefault(omission.field, []).append(name)
        for field, names in lost.items():
            pointer = _omission_pointer(source, field)
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
            f" (so do {len(others)} other prompts, e.g. {others[0][0]}#{others[0][1]})"
            if others
            else ""
        )
        problems.append(
            warning(
                file,
                pointer,
                f"{subject} receive the prompt without {field}{count}; to silence:"
                f' accept-omitted = ["{field}"] in [tool.mcp-codegen]',
            )
        )
    return problems


def _omission_pointer(source: Source, field: str) -> str:
    """Where a lost field is written: the prompt's field, or the first argument's."""
    if not field.startswith("arguments/"):
        return pointer_join(source.pointer, field)
    key = field.split("/", 1)[1]
    arguments = source.definition.get("arguments", [])
    index = next(i for i, a in enumerate(arguments) if isinstance(a, dict) and key in a)
    return pointer_join(source.pointer, "arguments", index, key)
