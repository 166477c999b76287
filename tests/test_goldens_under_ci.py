"""A request to rewrite expected files (``UPDATE_GOLDEN``, ``MCP_CODEGEN_REGEN_MERGE_CASES``)
set under CI fails the run and rewrites nothing; on a developer's machine it rewrites."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.golden import rewriting
from tests.support.paths import REPO

GOLDEN = REPO / "tests" / "generator" / "cases"
MERGE_CASES = REPO / "tests" / "handlers" / "merge_cases"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("variable", "selection", "folder"),
    [
        ("UPDATE_GOLDEN", "tests/generator/test_golden.py::test_golden[weather]", GOLDEN),
        ("MCP_CODEGEN_REGEN_MERGE_CASES", "tests/handlers/test_merge_cases.py", MERGE_CASES),
    ],
)
def test_a_rewrite_requested_under_ci_fails_and_rewrites_nothing(
    variable: str, selection: str, folder: Path
) -> None:
    before = _snapshot(folder)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", selection],
        cwd=REPO,
        env={**os.environ, "CI": "true", variable: "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout
    assert f"{variable}=1 is set under CI (CI=true): expected files are never rewritten" in (
        done.stdout
    )
    assert _snapshot(folder) == before


def test_rewriting_is_asked_for_and_refused_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("SOME_REWRITE", raising=False)
    assert rewriting("SOME_REWRITE") is False
    monkeypatch.setenv("SOME_REWRITE", "0")
    assert rewriting("SOME_REWRITE") is False
    monkeypatch.setenv("SOME_REWRITE", "1")
    assert rewriting("SOME_REWRITE") is True
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="SOME_REWRITE=1 is set under CI"):
        rewriting("SOME_REWRITE")
