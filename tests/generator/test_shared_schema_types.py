"""Tools sharing a schema share one datamodel-code-generator run (compile/typegen.py's
root stand-in): the generator runs once per distinct schema, and each tool's module is
byte for byte what a run under its own root name prints, collisions included."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import datamodel_code_generator
import pytest

from mcp_schemagen.compile import type_prefill, typegen

ORDER = {
    "type": "object",
    "description": "An order.",
    "properties": {
        "customer": {"type": "object", "properties": {"name": {"type": "string"}}},
        "lines": {
            "type": "array",
            "items": {"type": "object", "properties": {"sku": {"type": "string"}}},
        },
        "mode": {"enum": ["fast", 'it\'s "exact"']},
    },
    "required": ["customer"],
}


@pytest.fixture
def generate_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The root name of each run of the generator."""
    calls: list[str] = []
    real = datamodel_code_generator.generate

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["class_name"])
        return real(*args, **kwargs)

    monkeypatch.setattr(datamodel_code_generator, "generate", counting)
    return calls


def _text(schema: Any, root: str, cache_dir: Path | None = None, *, own: bool = False) -> Any:
    """The generator's text and warnings for ``schema`` named ``root``: through the
    stand-in as a build makes it, or (``own``) from a run under ``root`` itself."""
    shielded = typegen.shielded(copy.deepcopy(schema))
    make = typegen._generated_types if own else typegen.generated_types
    return make(shielded, root, cache_dir)


def test_tools_sharing_a_schema_run_the_generator_once(
    generate_calls: list[str], tmp_path: Path
) -> None:
    roots = [f"Tool{n}Input" for n in range(5)]
    made = [_text(ORDER, root, tmp_path) for root in roots]
    assert generate_calls == [typegen.ROOT_STAND_IN]
    for root, (body, notes) in zip(roots, made, strict=True):
        assert f"class {root}(TypedDict" in body
        assert (body, notes) == _text(ORDER, root, own=True)
    # And through the whole typed module, hostile enum text restored as before.
    module = typegen.typed_module(copy.deepcopy(ORDER), "Tool0Input", tmp_path)
    assert "it's" in module.body and typegen.ROOT_STAND_IN not in module.body


@pytest.mark.parametrize("root", ["Customer", "Line", "LinesItem", "Order"])
def test_a_root_named_in_the_shared_text_is_made_under_its_own_name(
    generate_calls: list[str], root: str
) -> None:
    """``Customer`` is a nested class's name already: the generator renames one of the
    two, so the stand-in's text renamed would not be its output."""
    stand_in, _ = _text(ORDER, "Elsewhere")
    made = _text(ORDER, root)
    if root in stand_in:
        assert generate_calls[-1] == root
    assert made == _text(ORDER, root, own=True)


def test_a_schema_naming_the_stand_in_is_made_under_its_root(
    generate_calls: list[str],
) -> None:
    schema = {
        "type": "object",
        "properties": {"inner": {"title": typegen.ROOT_STAND_IN, "type": "object"}},
    }
    made = _text(schema, "ToolInput")
    assert generate_calls == ["ToolInput"]
    assert made == _text(schema, "ToolInput", own=True)


def test_the_workers_get_a_shared_schema_once(tmp_path: Path) -> None:
    """type_prefill hands out the entry generated_types looks up first: one for all six
    (that ``Customer`` collides shows only in the shared text, so its own run is left to
    the compile, which makes it as it makes any miss)."""
    jobs = [(copy.deepcopy(ORDER), f"Tool{n}Input") for n in range(5)]
    misses = type_prefill._misses([*jobs, (copy.deepcopy(ORDER), "Customer")], tmp_path)
    assert len(misses) == 1
    type_prefill._make((misses, tmp_path))
    assert len(list(tmp_path.glob("*.json"))) == 1
    for schema, root in [*jobs, (ORDER, "Customer")]:
        assert _text(schema, root, tmp_path) == _text(schema, root, own=True)
