"""Where a schema names its values (enum, const), inclusion is decided by validating
them, not by comparing keywords; and a narrowing is shown with a value it now refuses.
Validation is python-jsonschema's, in the dialect the document declares ($schema), each
subschema inside its document so that its references resolve."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import jsonschema_rs
from jsonschema.validators import validator_for

from mcp_schemagen.contract.differences import Difference, Effect, difference, shown
from mcp_schemagen.contract.keywords import allowed_values

N, W, U = Effect.NARROWS, Effect.WIDENS, Effect.UNKNOWN
_NARROWING = frozenset({Effect.NARROWS, Effect.NARROWS_UNDECLARED, Effect.MAYBE_NARROWS})
_WIDENING = frozenset({Effect.WIDENS, Effect.MAYBE_WIDENS})
# Values tried, in order, when a narrowing is shown by example.
CANDIDATES: tuple[Any, ...] = (
    "two", 0, -1, 0.5, "", True, None, [], {}, "x" * 300, 10**12, -(10**12), [None], {"": None},
)  # fmt: skip
_LEGACY_DIALECTS = ("draft-03", "draft-04", "draft-06", "draft-07")


class Judge:
    """Validates values against subschemas of one document, by python-jsonschema and by
    jsonschema-rs (what the generated server validates with): where they disagree (ECMA
    and Python regular expressions differ), it cannot tell."""

    def __init__(self, root: Any) -> None:
        self._root = root
        self._validator: Any = None
        self._compiled: dict[str, Any] = {}
        if isinstance(root, dict | bool):
            try:
                cls = validator_for(root, default=jsonschema.Draft202012Validator)
                self._validator = cls(root)
            except Exception:  # an unusable $schema: nothing is validated
                self._validator = None

    def accepts(self, schema: Any, value: Any) -> bool | None:
        """Whether ``schema`` (a part of the document) accepts ``value``; None when the
        validators cannot tell (an unresolvable reference, an invalid schema) or differ."""
        if self._validator is None:
            return None
        try:
            python = bool(self._validator.evolve(schema=schema).is_valid(value))
        except Exception:  # any failure of the validator is "cannot tell"
            # (an unknown type, a pattern Python cannot compile, an unresolvable $ref)
            return None
        rust = self._rust(schema)
        if rust is None:
            return python  # a reference the stand-alone copy cannot reach: Python's word
        try:
            return python if bool(rust.is_valid(value)) == python else None
        except Exception:
            return None

    def _rust(self, schema: Any) -> Any:
        """jsonschema-rs for ``schema`` on its own, with the document's dialect and its
        $defs/definitions (what local references name); None when it cannot be built."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._compiled:
            self._compiled[key] = None
            standalone = _standalone(self._root, schema)
            if standalone is not None:
                try:
                    self._compiled[key] = jsonschema_rs.validator_for(standalone)
                except Exception:  # a reference outside $defs, a pattern Rust refuses
                    self._compiled[key] = None
        return self._compiled[key]


def _standalone(root: Any, schema: Any) -> Any:
    if schema is root or isinstance(schema, bool) or not isinstance(root, dict):
        return schema
    if not isinstance(schema, dict):
        return None
    carried = {k: root[k] for k in ("$schema", "$defs", "definitions") if k in root}
    if carried.keys() & schema.keys() - {"$schema"}:
        return None  # its own $defs would hide the document's
    return {**carried, **schema}


def ignores_reference_siblings(root: Any) -> bool:
    """Drafts up to 7 ignore every keyword beside a $ref."""
    dialect = root.get("$schema") if isinstance(root, dict) else None
    return isinstance(dialect, str) and any(d in dialect for d in _LEGACY_DIALECTS)


def settle(
    found: list[Difference],
    old: dict[str, Any],
    new: dict[str, Any],
    at: str,
    judges: tuple[Judge, Judge],
) -> list[Difference]:
    """When a side lists its values (enum, const), the question that side raises is
    decided by validating each of them: an old value the new schema refuses narrows, a new
    value the old schema refused widens. The keyword-by-keyword answers to that question
    are dropped (a pattern added beside an old const it matches narrows nothing)."""
    before, after = allowed_values(old), allowed_values(new)
    if before is None and after is None:
        return found
    old_judge, new_judge = judges
    lost = _refused(before, (old_judge, old), (new_judge, new))
    gained = _refused(after, (new_judge, new), (old_judge, old))
    if lost is None or gained is None:
        return found  # a value the validator could not judge: keep the keywords' answer
    settled: list[Difference] = []
    for found_one in found:
        effects = set(found_one.effects)
        if before is not None:
            effects = _decided(effects, _NARROWING, Effect.MAYBE_WIDENS, after is None)
        if after is not None:
            effects = _decided(effects, _WIDENING, Effect.MAYBE_NARROWS, before is None)
        if effects:
            settled.append(Difference(found_one.pointer, frozenset(effects), found_one.what))
    where = at + ("/const" if "const" in new or ("const" in old and "enum" not in new) else "/enum")
    if lost:
        settled.append(difference(where, f"no longer accepts {shown(lost)}", N))
    if gained:
        settled.append(difference(where, f"now also accepts {shown(gained)}", W))
    return settled


def _decided(
    effects: set[Effect], answered: frozenset[Effect], other: Effect, other_open: bool
) -> set[Effect]:
    """Effects with one direction answered: an UNKNOWN keeps only the other direction
    (still open) or nothing (both directions decided)."""
    kept = effects - answered
    if U in kept:
        kept.discard(U)
        if other_open:
            kept.add(other)
    return kept


def _refused(
    values: dict[str, Any] | None,
    listed_by: tuple[Judge, Any],
    judged_by: tuple[Judge, Any],
) -> list[Any] | None:
    """The listed values the listing schema accepts and the other schema refuses; None
    when some value cannot be judged."""
    if values is None:
        return []
    refused = []
    for value in values.values():
        valid = listed_by[0].accepts(listed_by[1], value)
        if valid is None:
            return None
        if not valid:
            continue  # never accepted by its own schema (a const outside its type)
        still = judged_by[0].accepts(judged_by[1], value)
        if still is None:
            return None
        if not still:
            refused.append(value)
    return refused


def refused_example(accepted: tuple[Judge, Any], refused: tuple[Judge, Any]) -> tuple[bool, Any]:
    """(found, value): a value the first schema accepts and the second refuses."""
    for value in CANDIDATES:
        if (
            accepted[0].accepts(accepted[1], value)
            and refused[0].accepts(refused[1], value) is False
        ):
            return True, value
    return False, None
