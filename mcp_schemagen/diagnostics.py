"""Problems found in the user's input, collected as values and reported all at once."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from mcp_schemagen.naming import printable_text


class Level(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding, located by file and JSON pointer: ``file#/pointer: level: message``."""

    file: str
    pointer: str
    level: Level
    message: str

    def __str__(self) -> str:
        # File names, pointers and quoted schema text may hold anything; one line each.
        return printable_text(f"{self.file}#{self.pointer}: {self.level.value}: {self.message}")


def error(file: str, pointer: str, message: str) -> Diagnostic:
    return Diagnostic(file, pointer, Level.ERROR, message)


def warning(file: str, pointer: str, message: str) -> Diagnostic:
    return Diagnostic(file, pointer, Level.WARNING, message)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.level is Level.ERROR for d in diagnostics)


def pointer_join(pointer: str, *parts: str | int) -> str:
    """Extend a JSON pointer (RFC 6901), escaping ``~`` and ``/`` in each part."""
    # A plain loop: the checks make a pointer for every subschema they visit (tens of
    # thousands in a build of 100 tools), and generator expressions cost twice as much.
    for part in parts:
        text = str(part)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        pointer += "/" + text
    return pointer


class BuildError(Exception):
    """Stops the pipeline: carries every diagnostic that explains why."""

    def __init__(self, diagnostics: Iterable[Diagnostic], exit_code: int = 2) -> None:
        self.diagnostics = sorted(diagnostics, key=_report_order)
        self.exit_code = exit_code
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def _report_order(d: Diagnostic) -> tuple[str, str, int, str]:
    return (d.file, d.pointer, 0 if d.level is Level.ERROR else 1, d.message)


def sort_for_report(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=_report_order)
