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


# A whole file skipped at collection, as a module-level importorskip does.
SKIPPED_FILE = """
import pytest

pytest.importorskip("no_such_module_for_this_test")


def test_never_collected() -> None:
    pass
"""

PASSING = """
def test_passes() -> None:
    pass
"""


def _run(
    tmp_path: Path, ci: str | None, files: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    for name, text in (files or {"test_sample.py": SAMPLE}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
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


def test_a_file_skipped_at_collection_is_listed(tmp_path: Path) -> None:
    done = _run(tmp_path, None, {"test_skipped.py": SKIPPED_FILE, "test_passing.py": PASSING})
    assert done.returncode == 0, done.stdout
    assert "1 passed, 1 skipped" in done.stdout
    summary = done.stdout[done.stdout.index("skipped categories") :]
    assert "1 skipped: could not import 'no_such_module_for_this_test'" in summary


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_file_skipped_at_collection_fails_the_run(tmp_path: Path, ci: str) -> None:
    done = _run(tmp_path, ci, {"test_skipped.py": SKIPPED_FILE, "test_passing.py": PASSING})
    assert done.returncode == 1, done.stdout
    assert "skipped at collection under CI: the run fails" in done.stdout
    assert (
        f"skipped under CI (CI={ci}), where every test must run: test_skipped.py: "
        "could not import 'no_such_module_for_this_test'"
    ) in done.stdout


def test_under_ci_a_run_with_only_skipped_files_fails(tmp_path: Path) -> None:
    done = _run(tmp_path, "true", {"test_skipped.py": SKIPPED_FILE})
    assert done.returncode == 1, done.stdout


def test_ci_run_sets_ci_itself(tmp_path: Path) -> None:
    """.ci/run does not rely on its caller: whatever python3 it runs sees CI=true."""
    shim = tmp_path / "bin"
    shim.mkdir()
    for name, script in {
        "python3": '#!/bin/sh\necho "CI=${CI:-unset} $*"\n',
        "redis-server": "#!/bin/sh\nexit 0\n",
    }.items():
        (shim / name).write_text(script, encoding="utf-8")
        (shim / name).chmod(0o755)
    done = subprocess.run(
        [str(REPO / ".ci" / "run")],
        env={"PATH": f"{shim}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "CI=true tasks.py test", done.stdout
