"""Commands run where a user runs them: from a subfolder of the project, or with no project
at all, and with a handler module that does not parse (what `check` says about it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.projects import run_cli, tool, write_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


@pytest.mark.parametrize("where", ["tools", "server", "server/_types"])
def test_check_and_build_find_the_project_from_a_subfolder(
    project: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / where)
    code, out, err = run_cli("check")
    assert (code, out, err) == (0, "generated code is up to date\n", "")
    (project / "tools" / "echo.json").write_text(
        json.dumps(tool(description="Louder.")), encoding="utf-8"
    )
    code, out, err = run_cli("check", ".")
    assert code == 1, err
    assert "generated code is stale" in err
    code, out, err = run_cli("build", "-q")
    assert code == 0, err
    assert "server: 1 tool," in out
    assert '"Louder."' in (project / "server" / "_dispatch.py").read_text(encoding="utf-8")


def test_a_pyproject_without_the_table_on_the_way_up_is_passed_over(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a sub-package with a pyproject.toml of its own, not an mcp-codegen project
    nested = project / "tools" / "sub"
    nested.mkdir()
    (nested / "deeper").mkdir()
    (nested / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    monkeypatch.chdir(nested / "deeper")
    assert run_cli("check")[:2] == (0, "generated code is up to date\n")
    # in that folder itself, its own pyproject.toml is the one meant, and it says why not
    monkeypatch.chdir(nested)
    code, _, err = run_cli("check")
    assert code == 2
    assert "pyproject.toml#: error: no [tool.mcp-codegen] table" in err


def test_no_project_anywhere_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    for command in ("check", "build"):
        code, out, err = run_cli(command)
        assert (code, out) == (2, ""), err
        first = err.splitlines()[0]
        assert first.startswith(
            "pyproject.toml#: error: no pyproject.toml with a [tool.mcp-codegen]"
        )
        assert "pyproject.toml, ../pyproject.toml, ../../pyproject.toml" in first
        assert "mcp-codegen new NAME" in first
    assert list(folder.iterdir()) == []


def test_check_on_an_unparsable_handler_module_says_cannot_read_once(project: Path) -> None:
    handlers = project / "server" / "handlers.py"
    handlers.write_text(handlers.read_text(encoding="utf-8") + "\ndef broken(:\n", encoding="utf-8")
    (project / "tools" / "echo.json").write_text(
        json.dumps(tool(description="new")), encoding="utf-8"
    )
    code, _, err = run_cli("check", str(project))
    assert code == 3
    lines = err.splitlines()
    assert lines[0].startswith(
        "server/handlers.py#: error: cannot read the handler module: it does not parse: line "
    )
    assert "update" not in err and "nothing was written" not in err
    assert lines[-1] == "mcp-codegen: 1 error(s)"
    code, _, err = run_cli("build", str(project))
    assert code == 3
    assert err.count("does not parse") == 1 and err.count("nothing was written") == 1
