"""How a TOML table is read by a description of its keys (config_keys.py holds the
rows of [tool.mcp-codegen]): each key's value checked, defaulted and converted by its
row, every problem at the key's own JSON pointer."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error


@dataclass
class Reading:
    """One table being read: what the rows' checks need besides their own value."""

    root: Path
    where: str  # the pyproject.toml path as diagnostics print it
    allow_outside: bool
    project: Mapping[str, Any]  # the [project] table (name and version are defaults)
    values: dict[str, Any] = field(default_factory=dict)  # by key, as read so far


Problems = list[tuple[str, str]]  # (key, message)


@dataclass(frozen=True)
class ConfigKey:
    name: str  # as written in pyproject.toml
    type: str  # as the reference documents it
    default: str  # as the reference documents it
    meaning: str
    # Config's field for the value (None: read by another command, or not kept).
    field: str | None
    # Whether a value is acceptable; the message when it is not (given the value).
    valid: Callable[[Any, Reading], bool] = lambda value, reading: True
    message: Callable[[Any], str] = lambda value: "is not valid"
    # The value when the key is unacceptable, and when it is absent (unless ``absent``
    # says otherwise: a required key is absent as None, which is not acceptable).
    fallback: Callable[[Reading], Any] = lambda reading: None
    absent: Callable[[Reading], Any] | None = None
    # Checks of an acceptable value that need more than its type (each item, other keys).
    more: Callable[[Any, Reading], Problems] = lambda value, reading: []
    # The acceptable value as Config keeps it.
    convert: Callable[[Any, Reading], Any] = lambda value, reading: value
    # A row that reads itself (a table of its own, with its own pointers).
    read: Callable[[Any, Reading], tuple[Any, list[Diagnostic]]] | None = None


def strings(value: Any, *, nonempty: bool = False) -> bool:
    return (
        isinstance(value, list)
        and (bool(value) or not nonempty)
        and all(isinstance(item, str) for item in value)
    )


def integer(value: Any, low: int, high: int | None = None) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return value >= low and (high is None or value <= high)


def unknown_key(name: str, known: Sequence[str]) -> str:
    """What a key no row describes gets: the closest known key when one is near."""
    guess = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {guess[0]!r}? " if guess else ""
    return f"unknown key; {hint}known keys: {', '.join(known)}"


_ABSENT = object()


def read_table(
    keys: Sequence[ConfigKey], section: Mapping[str, Any], reading: Reading, pointer: str
) -> list[Diagnostic]:
    """Each row's value of ``section`` (or its default) into ``reading.values`` as Config
    keeps it, by key; the problems, each at ``pointer``/key."""
    known = sorted(key.name for key in keys)
    problems = [
        error(reading.where, f"{pointer}/{name}", unknown_key(name, known))
        for name in sorted(set(section) - set(known))
    ]
    for key in keys:
        if key.field is None:
            continue
        value = section.get(key.name, _ABSENT)
        if key.read is not None:
            converted, found = key.read(None if value is _ABSENT else value, reading)
            reading.values[key.name] = converted
            problems += found
            continue
        if value is _ABSENT:
            value = (key.absent or key.fallback)(reading)
        said: Problems = []
        if not key.valid(value, reading):
            said.append((key.name, key.message(value)))
            value = key.fallback(reading)
        said += key.more(value, reading)
        problems += [error(reading.where, f"{pointer}/{at}", message) for at, message in said]
        reading.values[key.name] = key.convert(value, reading)
    return problems


def reference_markdown(keys: Sequence[ConfigKey]) -> str:
    """The rows as a markdown table: key, type, default, meaning."""
    lines = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key in keys:
        meaning = key.meaning.replace("|", "\\|")
        lines.append(f"| `{key.name}` | {key.type} | {key.default} | {meaning} |")
    return "\n".join(lines) + "\n"
