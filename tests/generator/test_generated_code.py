"""The embedded example's generated package: deterministic bytes, a fresh-interpreter
import, and `mypy --strict` over all of it (protocol models, runtime, types, handlers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.support.projects import build_embedded_example, mypy_strict

EXAMPLE = REPO / "example"


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def example_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    # Separate caches, so the second build computes everything again rather than reading
    # what the first one cached.
    first = build_embedded_example(
        tmp_path_factory.mktemp("seed0"), "0", tmp_path_factory.mktemp("cache0")
    )
    second = build_embedded_example(
        tmp_path_factory.mktemp("seed1"), "1", tmp_path_factory.mktemp("cache1")
    )
    return first, second


def test_output_is_byte_identical_across_hash_seeds(example_builds: tuple[Path, Path]) -> None:
    first, second = example_builds
    one, other = _tree(first), _tree(second)
    assert sorted(one) == sorted(other)
    different = [name for name in one if one[name] != other[name]]
    assert different == []
    assert len(one) > 25


def test_generated_package_imports_in_a_fresh_interpreter(
    example_builds: tuple[Path, Path],
) -> None:
    out, _ = example_builds
    probe = (
        "import example_server._dispatch as d, example_server.types, example_server.protocol;"
        "import importlib, pkgutil, example_server.protocol as p;"
        "[importlib.import_module('example_server.protocol.' + m.name) for m in pkgutil.iter_modules(p.__path__)];"
        "print(sorted(t.name for t in d.TOOLS))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=out, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(sorted(p.stem for p in (EXAMPLE / "tools").iterdir()))


def test_generated_package_passes_mypy_strict(example_builds: tuple[Path, Path]) -> None:
    out, _ = example_builds
    result = mypy_strict(out, "example_server")
    assert result.returncode == 0, result.stdout + result.stderr


def test_runtime_sources_are_copied_already_formatted() -> None:
    """The build copies mcp_schemagen/runtime without formatting it; that is only right
    while each file is exactly what the generator's ruff would make of it."""
    from mcp_schemagen.render.formatting import format_unsorted
    from mcp_schemagen.render.runtime_copy import runtime_sources

    unformatted = [
        p.name
        for p in runtime_sources()
        if format_unsorted(p.read_text(encoding="utf-8")) != p.read_text(encoding="utf-8")
    ]
    assert unformatted == [], "run .venv/bin/ruff format over mcp_schemagen/runtime"


def test_generated_modules_are_clean_under_ruff_defaults_and_import_sorting(
    example_builds: tuple[Path, Path],
) -> None:
    """A user's `ruff check` finds nothing in what we generate: ruff's default rules plus
    import sorting (I) and sorted ``__all__`` (RUF022), with no configuration of theirs."""
    out, _ = example_builds
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--no-cache",
            "--select",
            "E4,E7,E9,F,I,RUF022",
            "--line-length",
            "100",
            "example_server",
        ],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
