"""Files the tool writes get the mode any new file gets under the umask, and a rewrite
keeps the mode the owner gave a file (mcp_schemagen/write/disk.py, mcp_schemagen/atomic.py)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.write.disk import write_all
from tests.support.projects import run_cli, tool, write_project

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o027)
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("umask")
def test_new_files_honour_the_umask_and_rewrites_keep_the_mode(tmp_path: Path) -> None:
    new = tmp_path / "a" / "new.txt"
    write_all([OutputFile(new, "one")])
    assert _mode(new) == 0o640  # 0o666 under umask 027; mkstemp would give 0o600

    new.chmod(0o604)
    write_all([OutputFile(new, "two")])
    assert new.read_text(encoding="utf-8") == "two"
    assert _mode(new) == 0o604


@pytest.mark.usefixtures("umask")
def test_a_build_keeps_the_mode_of_handlers_py(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    assert run_cli("build", "-q", str(root))[0] == 0
    package = root / "server"
    assert {_mode(p) for p in package.rglob("*") if p.is_file()} == {0o640}

    handlers = package / "handlers.py"
    handlers.chmod(0o600)
    write_project(root, {"other.json": tool("other")})  # a new tool: handlers.py is rewritten
    before = handlers.read_bytes()
    assert run_cli("build", "-q", str(root))[0] == 0
    assert handlers.read_bytes() != before
    assert _mode(handlers) == 0o600
