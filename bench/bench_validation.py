"""Validation cost per call: a generated server's validator against the alternatives.

Compares, on three tool-like schemas with a valid and an invalid instance each:

* ours: the validator ``compile_validator`` (mcp_schemagen/runtime/validation.py) builds;
* jsonschema-rs called directly (``jsonschema_rs.validator_for``, default configuration);
* python-jsonschema, a pre-built ``Draft202012Validator`` (``is_valid``).

Prints the median over several ``timeit.repeat`` runs, in µs per call, and ratios.
Run: ``.venv/bin/python bench/bench_validation.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import jsonschema
import jsonschema_rs

from mcp_schemagen.runtime.validation import compile_validator

SMALL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "units": {"enum": ["metric", "imperial"], "default": "metric"},
        "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
    },
    "required": ["city"],
    "additionalProperties": False,
}
SMALL_VALID = {"city": "Lisbon", "units": "metric", "days": 5}
SMALL_INVALID = {"city": "Lisbon", "units": "kelvin", "days": 5}

MEDIUM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z]{3}-[0-9]{6}$"},
        "title": {"type": "string", "minLength": 1, "maxLength": 200},
        "description": {"type": "string", "maxLength": 5000},
        "priority": {"type": "integer", "minimum": 0, "maximum": 5},
        "status": {"enum": ["open", "in_progress", "blocked", "done"]},
        "estimate_hours": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000},
        "tags": {
            "type": "array",
            "items": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
            "maxItems": 20,
            "uniqueItems": True,
        },
        "assignee": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "email": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$"},
                "team": {"type": "string"},
            },
            "required": ["name", "email"],
            "additionalProperties": False,
        },
        "subtasks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 1},
                    "done": {"type": "boolean"},
                    "weight": {"type": "integer", "minimum": 1, "maximum": 10},
                },
                "required": ["title", "done"],
                "additionalProperties": False,
            },
            "maxItems": 50,
        },
        "due": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "created_by": {"type": "string"},
        "watchers": {"type": "array", "items": {"type": "string"}, "maxItems": 100},
        "public": {"type": "boolean", "default": False},
        "progress": {"type": "number", "minimum": 0, "maximum": 1},
        "parent": {"type": ["string", "null"], "pattern": "^[a-z]{3}-[0-9]{6}$"},
    },
    "required": ["id", "title", "status", "priority"],
    "additionalProperties": False,
}
MEDIUM_VALID: dict[str, Any] = {
    "id": "abc-123456",
    "title": "Ship the validator benchmark",
    "description": "Measure per-call validation cost.",
    "priority": 2,
    "status": "in_progress",
    "estimate_hours": 3.5,
    "tags": ["bench", "validation", "runtime"],
    "assignee": {"name": "Ada", "email": "ada@example.org", "team": "core"},
    "subtasks": [
        {"title": "write schemas", "done": True, "weight": 2},
        {"title": "write instances", "done": True},
        {"title": "print table", "done": False, "weight": 5},
    ],
    "due": "2026-08-01",
    "created_by": "lead",
    "watchers": ["a", "b", "c"],
    "public": False,
    "progress": 0.4,
    "parent": None,
}
# Wrong only deep inside: the last subtask's weight, so every validator walks the whole instance.
MEDIUM_INVALID = {
    **MEDIUM_VALID,
    "subtasks": [
        *MEDIUM_VALID["subtasks"][:2],
        {"title": "print table", "done": False, "weight": 11},
    ],
}

REFS: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "point": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"],
            "additionalProperties": False,
        },
        "circle": {
            "type": "object",
            "properties": {
                "kind": {"const": "circle"},
                "center": {"$ref": "#/$defs/point"},
                "radius": {"type": "number", "exclusiveMinimum": 0},
            },
            "required": ["kind", "center", "radius"],
            "additionalProperties": False,
        },
        "rectangle": {
            "type": "object",
            "properties": {
                "kind": {"const": "rectangle"},
                "corner": {"$ref": "#/$defs/point"},
                "width": {"type": "number", "minimum": 0},
                "height": {"type": "number", "minimum": 0},
            },
            "required": ["kind", "corner", "width", "height"],
            "additionalProperties": False,
        },
        "polygon": {
            "type": "object",
            "properties": {
                "kind": {"const": "polygon"},
                "points": {"type": "array", "items": {"$ref": "#/$defs/point"}, "minItems": 3},
            },
            "required": ["kind", "points"],
            "additionalProperties": False,
        },
        "shape": {
            "oneOf": [
                {"$ref": "#/$defs/circle"},
                {"$ref": "#/$defs/rectangle"},
                {"$ref": "#/$defs/polygon"},
            ]
        },
    },
    "properties": {
        "canvas": {"type": "string"},
        "shapes": {"type": "array", "items": {"$ref": "#/$defs/shape"}},
    },
    "required": ["canvas", "shapes"],
}
REFS_VALID: dict[str, Any] = {
    "canvas": "main",
    "shapes": [
        {"kind": "circle", "center": {"x": 0, "y": 0}, "radius": 2},
        {"kind": "rectangle", "corner": {"x": 1, "y": 1}, "width": 3, "height": 4},
        {"kind": "polygon", "points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}]},
    ],
}
REFS_INVALID = {
    "canvas": "main",
    "shapes": [
        *REFS_VALID["shapes"][:2],
        {"kind": "polygon", "points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": "1"}]},
    ],
}

CASES: list[tuple[str, dict[str, Any], Any, Any]] = [
    ("small", SMALL, SMALL_VALID, SMALL_INVALID),
    ("medium", MEDIUM, MEDIUM_VALID, MEDIUM_INVALID),
    ("$defs/$ref+oneOf", REFS, REFS_VALID, REFS_INVALID),
]


@dataclass(frozen=True)
class Row:
    schema: str
    instance: str
    ours: float
    rs: float
    python: float


def _median_us(is_valid: Callable[[Any], bool], instance: Any, repeat: int) -> float:
    """Median µs per ``is_valid(instance)`` over ``repeat`` runs of ~0.2 s each."""
    timer = timeit.Timer("is_valid(instance)", globals={"is_valid": is_valid, "instance": instance})
    number, _ = timer.autorange()
    runs = timer.repeat(number=number, repeat=repeat)
    return statistics.median(runs) / number * 1e6


def measure(repeat: int) -> list[Row]:
    rows: list[Row] = []
    for name, schema, valid, invalid in CASES:
        ours = compile_validator(schema)
        rs = jsonschema_rs.validator_for(schema)
        jsonschema.Draft202012Validator.check_schema(schema)
        python = jsonschema.Draft202012Validator(schema)
        for label, instance, expected in (("valid", valid, True), ("invalid", invalid, False)):
            verdicts = (ours.is_valid(instance), rs.is_valid(instance), python.is_valid(instance))
            assert verdicts == (expected,) * 3, f"{name}/{label}: {verdicts}"
            rows.append(
                Row(
                    name,
                    label,
                    _median_us(ours.is_valid, instance, repeat),
                    _median_us(rs.is_valid, instance, repeat),
                    _median_us(python.is_valid, instance, repeat),
                )
            )
    return rows


def render(rows: list[Row]) -> str:
    header = (
        "| schema | instance | ours µs | jsonschema-rs µs | python-jsonschema µs "
        "| ours / rs | python / ours |"
    )
    lines = [header, "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r.schema} | {r.instance} | {r.ours:.2f} | {r.rs:.2f} | {r.python:.1f} "
            f"| {r.ours / r.rs:.2f} | {r.python / r.ours:.0f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=7, help="timeit repeats (median taken)")
    args = parser.parse_args()
    print(
        f"jsonschema-rs {version('jsonschema-rs')}, jsonschema {version('jsonschema')}; "
        f"median of {args.repeat} repeats, µs per is_valid call"
    )
    print(render(measure(args.repeat)))


if __name__ == "__main__":
    main()
