"""Prompt files: the shapes a file may hold, the exact diagnostics of bad prompts (at
``file#/pointer``), what older revisions' clients lose, and the fingerprint `check` uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.load.config import load_config
from mcp_schemagen.load.prompts import prompts_in
from mcp_schemagen.record.fingerprint import input_digests
from tests.support.projects import run_cli, tool, write_project

ALL = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


def _project(tmp_path: Path, prompts: dict[str, Any], revisions: tuple[str, ...] = ALL) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool()}, revisions=revisions)
    (root / "prompts").mkdir()
    for name, content in prompts.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (root / "prompts" / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("document", "pointers"),
    [
        ({"name": "a"}, [""]),
        ([{"name": "a"}, {"name": "b"}], ["/0", "/1"]),
        ({"prompts": [{"name": "a"}]}, ["/prompts/0"]),
        ({"result": {"prompts": [{"name": "a"}]}}, ["/result/prompts/0"]),
    ],
)
def test_a_file_holds_a_prompt_a_list_or_a_listing(document: Any, pointers: list[str]) -> None:
    found, problems = prompts_in(document, "prompts/x.json")
    assert not problems
    assert [s.pointer for s in found] == pointers


CASES: dict[str, tuple[dict[str, Any], str]] = {
    "duplicate prompt name": (
        {"a.json": {"name": "p"}, "b.json": {"name": "p"}},
        "prompts/b.json#/name: error: prompt name 'p' is already used at prompts/a.json#; "
        "prompt names must be unique (case-sensitive)",
    ),
    "argument named twice": (
        {"a.json": {"name": "p", "arguments": [{"name": "x"}, {"name": "x"}]}},
        "prompts/a.json#/arguments/1/name: error: argument 'x' is already declared at "
        "prompts/a.json#/arguments/0/name; argument names must be unique",
    ),
    "arguments that become one parameter": (
        {"a.json": {"name": "p", "arguments": [{"name": "max-lines"}, {"name": "max_lines"}]}},
        "prompts/a.json#/arguments/1/name: error: argument 'max_lines' and argument 'max-lines'"
        " both become the Python parameter 'max_lines'; rename one of them",
    ),
    "invalid argument schema": (
        {
            "a.json": {
                "name": "p",
                "arguments": [{"name": "x", "x-mcp-codegen-schema": {"minLength": -1}}],
            }
        },
        "prompts/a.json#/arguments/0/x-mcp-codegen-schema/minLength: error:",
    ),
    "argument schema of a number": (
        {
            "a.json": {
                "name": "p",
                "arguments": [{"name": "x", "x-mcp-codegen-schema": {"type": "integer"}}],
            }
        },
        'prompts/a.json#/arguments/0/x-mcp-codegen-schema/type: error: must be "string" (or left'
        " out): prompt arguments are strings on the wire in every revision",
    ),
    "enum value not a string": (
        {
            "a.json": {
                "name": "p",
                "arguments": [{"name": "x", "x-mcp-codegen-schema": {"enum": ["a", 1]}}],
            }
        },
        "prompts/a.json#/arguments/0/x-mcp-codegen-schema/enum/1: error: enum value 1 is not a string",
    ),
    "misspelt prompt field": (
        {"a.json": {"name": "p", "descripton": "x"}},
        "prompts/a.json#/descripton: error: unknown prompt field 'descripton'; did you mean 'description'?",
    ),
    "misspelt argument field": (
        {"a.json": {"name": "p", "arguments": [{"name": "x", "requried": True}]}},
        "prompts/a.json#/arguments/0/requried: error: unknown prompt argument field 'requried';"
        " did you mean 'required'?",
    ),
    "no name": (
        {"a.json": {"description": "x"}},
        'prompts/a.json#/name: error: a prompt needs a "name": a non-empty string',
    ),
    "not a valid Prompt": (
        {"a.json": {"name": "p", "title": 3}},
        "prompts/a.json#/title: error: not a valid 2026-07-28 Prompt: 3 is not of type 'string'",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_prompts_are_located_errors(case: str, tmp_path: Path) -> None:
    files, expected = CASES[case]
    root = _project(tmp_path, files)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert expected in err, err
    assert not (root / "server").exists()


def test_older_clients_lose_fields_with_one_warning_each(tmp_path: Path) -> None:
    prompt = {
        "name": "p",
        "title": "P",
        "arguments": [{"name": "x", "title": "X"}],
    }
    root = _project(tmp_path, {"a.json": prompt, "b.json": {**prompt, "name": "q"}})
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert (
        "prompts/a.json#/title: warning: protocol revisions 2024-11-05, 2025-03-26 do not define"
        " this; their clients receive the prompt without title (so do 1 other prompts, e.g."
        ' prompts/b.json#/title); to silence: accept-omitted = ["title"]'
    ) in err
    assert "prompts/a.json#/arguments/0/title: warning:" in err
    quiet = _project(tmp_path / "q", {"a.json": prompt})
    pyproject = quiet / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + 'accept-omitted = ["title", "arguments/title"]\n', encoding="utf-8"
    )
    code, _, err = run_cli("build", str(quiet))
    assert code == 0 and "warning" not in err, err


def test_prompt_files_are_fingerprinted_and_check_sees_an_edit(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.yaml": "name: p\narguments:\n  - name: x\n"})
    assert "prompts/a.yaml" in input_digests(load_config(root))
    assert run_cli("build", "-q", str(root))[0] == 0
    assert run_cli("check", "-q", str(root))[0] == 0
    (root / "prompts" / "a.yaml").write_text("name: p\narguments:\n  - name: y\n", encoding="utf-8")
    code, out, _ = run_cli("check", "-q", str(root))
    assert code == 1 and "prompts/a.yaml: changed since the last build" in out
    code, out, _ = run_cli("check", "--diff", "-q", str(root))
    assert code == 1 and "y: str | None = None" in out


def test_the_prompts_glob_is_configurable(tmp_path: Path) -> None:
    root = _project(tmp_path, {})
    (root / "my-prompts").mkdir()
    (root / "my-prompts" / "p.json").write_text('{"name": "p"}', encoding="utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + 'prompts = ["my-prompts/*.json"]\n', encoding="utf-8"
    )
    assert run_cli("build", "-q", str(root))[0] == 0
    assert '# mcp-codegen prompt: "p"' in (root / "server" / "handlers.py").read_text()


def test_the_build_summary_counts_prompts_apart_from_tools(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.yaml": "name: p\n", "b.yaml": "name: q\n"})
    code, out, _ = run_cli("build", "-q", str(root))
    assert code == 0 and ", 2 prompts, protocol revisions" in out, out
    code, out, _ = run_cli("build", "-q", str(root))  # from the build record
    assert code == 0 and "up to date (" in out and ", 2 prompts)" in out, out
