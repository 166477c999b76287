"""Golden cases: tests/generator/cases/NAME/input is a project, tests/generator/cases/NAME/expected the files
its build writes (and, under _project/, what it writes beside the package: an MCP Apps
view's TypeScript declarations). Protocol models and the runtime copy are covered by their own tests
(and carry protocol text), so they are not part of the golden output. The modules whose
templates are static text (the typed client's machinery `_client.py`, the handler API
`api.py`) are the same in every package: one golden copy each, in
tests/generator/cases/_shared/, which every case's must equal.

Regenerate after an intended change with: UPDATE_GOLDEN=1 python3 tasks.py test -k golden
and review the diff (never under CI: there UPDATE_GOLDEN fails the test, tests/support/golden.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.golden import rewriting
from tests.support.projects import run_cli

CASES = Path(__file__).parent / "cases"
SHARED = ("_client.py", "_tasks.py", "api.py")
NOT_GOLDEN = ("protocol/", "_runtime/", "_manifest.json", *SHARED)
SHARED_DIR = CASES / "_shared"


def _golden_files(package: Path) -> dict[str, str]:
    return {
        path.relative_to(package).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(package.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and not path.relative_to(package).as_posix().startswith(NOT_GOLDEN)
    }


def _project_outputs(project: Path) -> dict[str, str]:
    """The files the build wrote beside the package (an MCP Apps view's .d.ts), as the
    build record lists them, kept under _project/ in the case's expected files."""
    record = json.loads((project / "server" / "_manifest.json").read_text(encoding="utf-8"))
    return {
        f"_project/{relative}": (project / relative).read_text(encoding="utf-8")
        for relative in record.get("project_outputs", {})
    }


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if (p / "input").is_dir()))
def test_golden(case: str, tmp_path: Path) -> None:
    project = tmp_path / case
    shutil.copytree(CASES / case / "input", project)
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 0, err
    produced = _golden_files(project / "server")
    produced |= _project_outputs(project)
    expected_dir = CASES / case / "expected"
    shared = {name: (project / "server" / name).read_text(encoding="utf-8") for name in SHARED}
    if rewriting("UPDATE_GOLDEN"):  # on purpose only: under CI the test fails instead
        SHARED_DIR.mkdir(exist_ok=True)
        for name, text in shared.items():
            (SHARED_DIR / name).write_text(text, encoding="utf-8")
        shutil.rmtree(expected_dir, ignore_errors=True)
        for name, text in produced.items():
            (expected_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / name).write_text(text, encoding="utf-8")
    expected = {
        path.relative_to(expected_dir).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(expected_dir.rglob("*"))
        if path.is_file()
    }
    for name, text in shared.items():
        golden = (SHARED_DIR / name).read_text(encoding="utf-8")
        assert text == golden, f"{case}: {name} differs from its shared golden copy"
    assert sorted(produced) == sorted(expected)
    for name in expected:
        assert produced[name] == expected[name], f"{case}: {name} differs from its golden copy"
