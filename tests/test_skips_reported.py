"""The run's summary names every category of skipped tests, and under CI a skip fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

SAMPLE = """
import pytest

needs_thing = pytest.mark.skipif(True, reason="needs the thing (install it)")


@needs_thing
def test_one() -> None:
    pass


@needs_thing
def test_two() -> None:
    pass


def test_runs() -> None:
    pytest.skip("not here")


@pytest.mark.xfail(reason="known")
def test_expected_failure() -> None:
    raise AssertionError
"""


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(SAMPLE, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.skips"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_run_that_skipped_says_which_categories(tmp_path: Path) -> None:
    done = _run(tmp_path, None)
    assert done.returncode == 0, done.stdout
    summary = done.stdout[done.stdout.index("skipped categories") :]
    assert "   2 skipped: needs the thing (install it)" in summary
    assert "   1 skipped: not here" in summary
    assert "known" not in summary  # an expected failure is no skip


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_skip_fails_the_run(tmp_path: Path, ci: str) -> None:
    done = _run(tmp_path, ci)
    assert done.returncode == 1, done.stdout
    # a skip decided before the test runs (skipif) fails its set-up: an error
    assert "1 failed, 1 xfailed, 2 errors" in done.stdout
    assert "skipped under CI (CI=" in done.stdout
    assert "needs the thing (install it)" in done.stdout
