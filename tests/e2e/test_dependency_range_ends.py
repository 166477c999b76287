"""A generated server works at both ends of the dependency ranges its pyproject declares.

The test environment holds the locked releases; a generated project's users install
whatever its ranges admit (mcp_schemagen/scaffold.py: the run-time dependencies and the
``http`` extra). So the conformance project is served from two venvs of their own
(cached under .cache/range-ends/, which git ignores): one with the oldest release each
range admits (its lower bound, exactly), one with the newest. In each,
tests/support/range_end_checks.py speaks stdio and HTTP to it (with a Redis store) and
runs the store's checks.

These venvs are deliberately not locked, unlike everything else the tests install: the
newest end must take the newest release each range admits, on the day it runs (a
release that breaks a generated server must fail here first), so it may test different
code next month; the oldest end pins each declared dependency at its lower bound and
lets pip resolve what those pull in. The venvs are rebuilt when the declared ranges
change, and .cache/range-ends/ can be deleted to take newer releases.
"""

from __future__ import annotations

import os
import re
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_schemagen.scaffold import (
    HTTP_DEPENDENCIES,
    RUNTIME_DEPENDENCIES,
    TASK_ENGINE_DEPENDENCIES,
)
from tests.support.http_server import CONFORMANCE_PROJECT, REDIS, build_project, redis_server
from tests.support.paths import REPO, needs_shared

PACKAGE = "conformance_server"
CACHE = REPO / ".cache" / "range-ends"
DECLARED = (*RUNTIME_DEPENDENCIES, *HTTP_DEPENDENCIES)
# The tasks extra (--task-engine taskiq) at the newest end only: taskiq-redis needs a
# newer redis than the http extra's lowest, so its oldest end is no install of its own.
NEWEST_ONLY = TASK_ENGINE_DEPENDENCIES
pytestmark = [
    needs_shared,
    pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (Debian package)"),
]


def oldest(requirement: str) -> str:
    """``name[extras]>=X[,<Y]`` as ``name[extras]==X`` (X padded to three parts: 5 -> 5.0.0)."""
    found = re.fullmatch(
        r"([A-Za-z0-9_.-]+(?:\[[A-Za-z0-9_,.-]+\])?)>=([0-9.]+)(,<[0-9.]+)?", requirement
    )
    assert found, f"{requirement!r}: every declared range needs a lower bound (name>=X[,<Y])"
    parts = found[2].split(".")
    return f"{found[1]}=={'.'.join(parts + ['0'] * (3 - len(parts)))}"


def test_every_declared_range_has_both_ends() -> None:
    for requirement in (*DECLARED, *NEWEST_ONLY):
        oldest(requirement)
        assert "<" in requirement or requirement.startswith("typing-extensions"), (
            f"{requirement!r} has no upper bound: the newest end would be untested tomorrow"
        )


def _environment(end: str) -> Path:
    wanted = [oldest(r) for r in DECLARED] if end == "oldest" else [*DECLARED, *NEWEST_ONLY]
    folder = CACHE / end
    stamp = folder / "installed.txt"
    python = folder / "bin" / "python"
    if stamp.is_file() and stamp.read_text() == " ".join(wanted) and python.exists():
        return python
    venv.create(folder, with_pip=True, clear=True)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *wanted],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert installed.returncode == 0, f"pip install {wanted} failed:\n{installed.stderr}"
    stamp.write_text(" ".join(wanted))
    return python


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(CONFORMANCE_PROJECT, tmp_path_factory.mktemp("range-ends"), PACKAGE)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with redis_server(tmp_path / "redis") as url:
        yield url


@pytest.mark.parametrize("end", ["oldest", "newest"])
def test_a_generated_server_at_each_end_of_its_ranges(
    end: str, project: Path, redis_url: str
) -> None:
    python = _environment(end)
    checked = subprocess.run(
        [str(python), "-m", "tests.support.range_end_checks", str(project), PACKAGE, redis_url],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{project}"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "range end checks passed" in checked.stdout


def test_the_task_engine_at_the_newest_end_of_its_range(project: Path, redis_url: str) -> None:
    python = _environment("newest")
    checked = subprocess.run(
        [str(python), "-m", "tests.support.task_engine_checks", str(project), PACKAGE, redis_url],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{project}"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "task engine checks passed" in checked.stdout
