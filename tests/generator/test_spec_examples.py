"""The specification's own examples round-trip through the generated 2026-07-28 models.

Each ``examples/DEFINITION/FILE.json`` is one item: it must be valid against the schema
(python-jsonschema as the oracle, so a bad example is not taken for a model defect),
validate into the generated class of the same name, and dump back
(``by_alias=True, exclude_unset=True, mode="json"``) equal to the input, number types
included (``json.dumps`` tells ``50`` from ``50.0`` and ``true`` from ``1``; ``==`` does
not). Examples listed in tests/data/known_example_failures.toml run as
``xfail(strict=True)``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from mcp_schemagen.load import specs
from mcp_schemagen.protocol_models.models import module_name, render_protocol_module
from tests.support.paths import SHARED_SPECS, needs_shared

REVISION = "2026-07-28"
EXAMPLES = SHARED_SPECS / REVISION / "examples"
KNOWN_FAILURES = Path(__file__).parent / "data" / "known_example_failures.toml"

pytestmark = needs_shared


def _known_failures() -> dict[str, str]:
    table: dict[str, str] = tomllib.loads(KNOWN_FAILURES.read_text("utf-8")).get("examples", {})
    return table


def _example_params() -> list[Any]:
    if not EXAMPLES.is_dir():
        return [pytest.param(None, id="no-examples")]
    known = _known_failures()
    params = []
    for path in sorted(EXAMPLES.glob("*/*.json")):
        key = f"{path.parent.name}/{path.name}"
        marks = [pytest.mark.xfail(reason=known[key], strict=True)] if key in known else []
        params.append(pytest.param(path, id=key, marks=marks))
    return params


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated 2026-07-28 module, imported into this process under a private name."""
    path = tmp_path_factory.mktemp("protocol") / f"{module_name(REVISION)}.py"
    path.write_text(render_protocol_module(specs.load(REVISION)), encoding="utf-8")
    name = f"_test_spec_examples_{module_name(REVISION)}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves forward references through it
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(name, None)


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return specs.load(REVISION).document


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("path", _example_params())
def test_example_round_trips(path: Path | None, models: ModuleType, schema: dict[str, Any]) -> None:
    assert path is not None, f"no examples in {EXAMPLES}"
    definition = path.parent.name
    example = json.loads(path.read_text("utf-8"))
    oracle = jsonschema.Draft202012Validator(
        {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    )
    error = jsonschema.exceptions.best_match(oracle.iter_errors(example))
    assert error is None, f"the example is not valid against the schema: {error}"
    model = getattr(models, definition, None)
    assert model is not None, f"the generated module has no class {definition}"
    dumped = model.model_validate(example).model_dump(
        by_alias=True, exclude_unset=True, mode="json"
    )
    assert _canonical(dumped) == _canonical(example)


def test_known_failures_name_existing_examples() -> None:
    missing = [key for key in _known_failures() if not (EXAMPLES / key).is_file()]
    assert missing == [], "stale entries in known_example_failures.toml"
