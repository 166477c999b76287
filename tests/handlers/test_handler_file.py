"""The handler module as a file: its line endings, its encoding, and how it is named in
messages (mcp_schemagen/handlers/file.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_schemagen.handlers.file import line_ending
from tests.support.projects import run_cli, tool, write_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    assert run_cli("build", "-q", str(root))[0] == 0
    return root


def _handlers(root: Path) -> Path:
    return root / "server" / "handlers.py"


def test_a_crlf_module_keeps_its_line_endings(project: Path) -> None:
    path = _handlers(project)
    body = path.read_text(encoding="utf-8").replace(
        'raise NotImplementedError("echo")', "return text  # mine"
    )
    path.write_bytes(body.replace("\n", "\r\n").encode("utf-8"))
    assert run_cli("check", str(project))[0] == 0, "a body edit in CRLF is fresh"

    write_project(project, {"other.json": tool("other")})
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 0, err
    data = path.read_bytes()
    assert b"def other(" in data and b"return text  # mine\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n"), "every line ends in CRLF"
    assert run_cli("check", str(project))[0] == 0
    code, out, _ = run_cli("build", "-q", str(project))
    assert (code, out) == (0, "server: up to date (2 tools)\n")


def test_a_module_that_is_not_utf8_stops_the_build_with_exit_3(project: Path) -> None:
    path = _handlers(project)
    original = path.read_bytes()
    path.write_bytes(original.replace(b"Echo the text back.", b"Echo \xe9 back."))
    before = path.read_bytes()
    write_project(project, {"other.json": tool("other")})
    for command in ("build", "check"):
        code, out, err = run_cli(command, str(project))
        assert code == 3, (command, out, err)
        assert (
            "server/handlers.py#: error: cannot read the handler module: it is not UTF-8 "
            "text (byte 0xe9 at offset"
        ) in err
        assert "convert it" in err and "Traceback" not in err
    assert path.read_bytes() == before


def test_handler_module_messages_name_it_relative_to_the_project(project: Path) -> None:
    path = _handlers(project)
    path.write_text(path.read_text(encoding="utf-8") + "\ndef broken(:\n", encoding="utf-8")
    write_project(project, {"other.json": tool("other")})
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 3
    assert err.startswith(
        "server/handlers.py#: error: cannot read the handler module: it does not parse"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a\nb\n", "\n"), ("a\r\nb\r\n", "\r\n"), ("a\r\nb\r\nc\n", "\r\n"), ("a\nb\nc\r\n", "\n")],
)
def test_line_ending_is_that_of_most_lines(text: str, expected: str) -> None:
    assert line_ending(text) == expected
