"""The Redis store under every major release of redis-py that the declared range admits.

The test environment holds one locked redis-py, but a generated server's ``http`` extra
admits a range (mcp_schemagen/scaffold.py, ``HTTP_DEPENDENCIES``), and majors changed
client defaults under the store before (redis-py 8: a 5 s socket timeout, a pool of 100).
So each major gets a small venv of its own (cached under .cache/redis-py/, which git
ignores), where tests/support/store_checks.py runs the store's contract, waits longer
than any default timeout and more waiting readers than any default pool, against a
private redis-server.

Each venv holds exact versions, so a fresh clone tests the same code next month: the
release of each major in ``REDIS_PY`` (the newest of that major when it was written;
move it on purpose, in a commit of its own), what that release needs (``NEEDS``) and
orjson at the versions of the locked test environment, and ``async-timeout`` below
Python 3.11.3: installed without resolving dependencies, so nothing else comes in.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_schemagen.scaffold import HTTP_DEPENDENCIES
from tests.support.http_server import REDIS, redis_server
from tests.support.paths import REPO

CACHE = REPO / ".cache" / "redis-py"
# The redis-py release each major is tested at (exact; PyPI's newest of that major when
# written). A major the declared range gains or loses must be added or removed here.
REDIS_PY = {5: "5.3.1", 6: "6.4.0", 7: "7.4.1", 8: "8.1.0"}
# What a major's release needs besides itself (pip's resolution of it, Python >= 3.11.3),
# installed at the version constraints.txt locks for the test environment.
NEEDS = {5: ("PyJWT",)}
# redis-py's one dependency, below Python 3.11.3 only.
ASYNC_TIMEOUT = "async-timeout==5.0.1"
pytestmark = pytest.mark.skipif(
    REDIS is None, reason="redis-server is not installed (Debian package redis-server)"
)


def _redis_requirement() -> str:
    return next(r for r in HTTP_DEPENDENCIES if re.match(r"redis\b", r))


def declared_majors() -> list[int]:
    """Every major release ``redis>=A,<B`` admits: A, A+1, ..., B-1."""
    requirement = _redis_requirement()
    low = re.search(r">=\s*(\d+)", requirement)
    high = re.search(r"<\s*(\d+)", requirement)
    assert low and high, f"{requirement!r}: expected redis>=A,<B (whole majors)"
    return list(range(int(low[1]), int(high[1])))


def test_the_project_and_generated_servers_declare_the_same_redis_range() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    dev = project["project"]["optional-dependencies"]["dev"]
    assert _redis_requirement() in dev


def test_every_declared_major_has_its_exact_release() -> None:
    assert sorted(REDIS_PY) == declared_majors()
    for major, version in REDIS_PY.items():
        assert re.fullmatch(rf"{major}\.\d+\.\d+", version), (major, version)


def exact_requirements(major: int) -> list[str]:
    """What the venv of ``major`` installs: every package, at an exact version."""
    needs = ("orjson", *NEEDS.get(major, ()))
    wanted = [f"redis=={REDIS_PY[major]}"]
    wanted += [f"{name}=={importlib.metadata.version(name)}" for name in needs]
    return wanted + ([ASYNC_TIMEOUT] if sys.version_info < (3, 11, 3) else [])


def _environment(major: int) -> Path:
    """A venv with redis-py ``REDIS_PY[major]`` (made once, then reused)."""
    wanted = " ".join(exact_requirements(major))
    folder = CACHE / f"redis-{major}"
    stamp = folder / "installed.txt"
    python = folder / "bin" / "python"
    if stamp.is_file() and stamp.read_text() == wanted and python.exists():
        return python
    venv.create(folder, with_pip=True, clear=True)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", *wanted.split()],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, f"pip install {wanted} failed:\n{installed.stderr}"
    stamp.write_text(wanted)
    return python


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with redis_server(tmp_path / "redis") as url:
        yield url


@pytest.mark.parametrize("major", declared_majors())
def test_the_store_works_under_redis_py_major(major: int, redis_url: str) -> None:
    python = _environment(major)
    checked = subprocess.run(
        [str(python), "-m", "tests.support.store_checks", redis_url],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"store checks passed with redis-py {REDIS_PY[major]}\n" in checked.stdout
