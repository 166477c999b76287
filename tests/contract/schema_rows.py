"""What the rows of schema_cases and schema_cases_combinators are written with: the
category names and small schema builders."""

from __future__ import annotations

from typing import Any

BC, BR, OK, UNK = "breaking-callers", "breaking-results", "compatible", "unknown"
NONE: frozenset[str] = frozenset()
DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def c(*names: str) -> frozenset[str]:
    return frozenset(names)


def obj(properties: dict[str, Any], **rest: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **rest}
