"""What fails the command (``breaking-fail`` in [tool.mcp-codegen]), whether callers are
taken to send only declared properties (``breaking-only-declared-properties``), and the
changes a project accepted on purpose (breaking-acknowledged.yaml)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

from mcp_schemagen.contract.changes import Category
from mcp_schemagen.diagnostics import BuildError, Diagnostic, error, pointer_join

FAIL_KEY = "breaking-fail"
DECLARED_ONLY_KEY = "breaking-only-declared-properties"
ACKNOWLEDGED_FILE = "breaking-acknowledged.yaml"
DEFAULT_FAILING = frozenset({Category.BREAKING_CALLERS, Category.BREAKING_RESULTS, Category.SAFETY})
# "breaking" names both breaking categories.
_NAMES = {c.value: frozenset({c}) for c in Category} | {
    "breaking": frozenset({Category.BREAKING_CALLERS, Category.BREAKING_RESULTS})
}


def failing_categories(root: Path) -> frozenset[Category]:
    """The categories that fail the command: ``breaking-fail`` or breaking and safety."""
    pyproject = root / "pyproject.toml"
    value = _section(pyproject).get(FAIL_KEY)
    if value is None:
        return DEFAULT_FAILING
    known = ", ".join(sorted(_NAMES))
    where = f"/tool/mcp-codegen/{FAIL_KEY}"
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BuildError([error(str(pyproject), where, f"must be a list of categories: {known}")])
    unknown = [v for v in value if v not in _NAMES]
    if unknown:
        message = f"unknown categories {', '.join(map(repr, unknown))}; known: {known}"
        raise BuildError([error(str(pyproject), where, message)])
    return frozenset().union(*(_NAMES[v] for v in value))


def only_declared_properties(root: Path) -> bool:
    """``breaking-only-declared-properties = true``: the project's callers send only the
    properties a schema declares, so a property added where any key was accepted is
    compatible (oasdiff's policy). Off by default: a caller that sent the key undeclared
    is refused now."""
    pyproject = root / "pyproject.toml"
    value = _section(pyproject).get(DECLARED_ONLY_KEY, False)
    if not isinstance(value, bool):
        where = f"/tool/mcp-codegen/{DECLARED_ONLY_KEY}"
        raise BuildError([error(str(pyproject), where, "must be true or false")])
    return value


def _section(pyproject: Path) -> dict[str, object]:
    tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
    section = tool.get("mcp-codegen", {}) if isinstance(tool, dict) else {}
    return section if isinstance(section, dict) else {}


@dataclass(frozen=True)
class Acknowledgement:
    """A change accepted on purpose: its location (``file#/pointer`` as the command
    prints it), why, and optionally the revision it was accepted against."""

    location: str
    reason: str
    reference: str | None
    index: int


def read_acknowledgements(root: Path) -> list[Acknowledgement]:
    path = root / ACKNOWLEDGED_FILE
    if not path.is_file():
        return []
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise BuildError([error(ACKNOWLEDGED_FILE, "", f"cannot be read: {exc}")]) from None
    if document is None:
        return []
    if not isinstance(document, list):
        example = '- pointer: "tools/x.json#/inputSchema/required"\n  reason: "..."'
        message = f"expected a list of acknowledgements, like\n{example}"
        raise BuildError([error(ACKNOWLEDGED_FILE, "", message)])
    found, problems = [], []
    for index, entry in enumerate(document):
        at = pointer_join("", index)
        entry_problems = _entry_problems(entry, at)
        if entry_problems:
            problems += entry_problems
            continue
        found.append(Acknowledgement(entry["pointer"], entry["reason"], entry.get("ref"), index))
    if problems:
        raise BuildError(problems)
    return found


def _entry_problems(entry: object, at: str) -> list[Diagnostic]:
    if not isinstance(entry, dict):
        return [error(ACKNOWLEDGED_FILE, at, "expected a mapping with pointer and reason")]
    problems = [
        error(ACKNOWLEDGED_FILE, pointer_join(at, key), f"{key}: {hint}")
        for key, hint in (
            ("pointer", "the change's location as printed, like tools/x.json#/inputSchema"),
            ("reason", "why the change is accepted, for the reviewers who follow"),
        )
        if not (isinstance(entry.get(key), str) and entry[key].strip())
    ]
    if "ref" in entry and not isinstance(entry["ref"], str):
        problems.append(error(ACKNOWLEDGED_FILE, pointer_join(at, "ref"), "ref: a string"))
    unknown = sorted(set(entry) - {"pointer", "reason", "ref"})
    problems += [error(ACKNOWLEDGED_FILE, pointer_join(at, k), "unknown key") for k in unknown]
    return problems
