"""Completion handlers asked for in prompt and resource files (x-mcp-codegen-complete):
the located errors of a bad request, the typed stubs written into handlers.py under their
`# mcp-codegen completion:` marker, the dispatch rows naming them, the key never published,
and bodies kept through later builds (signature updated, orphaned when no longer asked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.projects import run_cli, tool, write_project

TEMPLATE = "app://logs/{day}{?level}"
PROMPT = {
    "name": "review",
    "arguments": [
        {"name": "language", "x-mcp-codegen-complete": True},
        {"name": "style", "x-mcp-codegen-schema": {"enum": ["short", "long"]}},
    ],
}
LOGS = {"uriTemplate": TEMPLATE, "name": "logs", "x-mcp-codegen-complete": ["day"]}


def _project(tmp_path: Path, prompts: dict[str, Any], resources: dict[str, Any]) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    for folder, files in (("prompts", prompts), ("resources", resources)):
        (root / folder).mkdir()
        for name, content in files.items():
            (root / folder / name).write_text(json.dumps(content), encoding="utf-8")
    return root


CASES: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "prompt flag not a boolean": (
        {"a.json": {"name": "p", "arguments": [{"name": "x", "x-mcp-codegen-complete": "yes"}]}},
        {},
        "prompts/a.json#/arguments/0/x-mcp-codegen-complete: error: must be true (a completion"
        " handler for this argument in handlers.py) or false",
    ),
    "template list not a list": (
        {},
        {"a.json": {**LOGS, "x-mcp-codegen-complete": True}},
        "resources/a.json#/x-mcp-codegen-complete: error: must be a list of the template's"
        ' variables that get a completion handler in handlers.py, like ["day"]',
    ),
    "unknown template variable": (
        {},
        {"a.json": {**LOGS, "x-mcp-codegen-complete": ["day", "levl"]}},
        "resources/a.json#/x-mcp-codegen-complete/1: error: 'levl' is not a variable of"
        f" '{TEMPLATE}'; did you mean 'level'?",
    ),
    "a variable twice": (
        {},
        {"a.json": {**LOGS, "x-mcp-codegen-complete": ["day", "day"]}},
        "resources/a.json#/x-mcp-codegen-complete/1: error: 'day' is listed twice",
    ),
    "on a static resource": (
        {},
        {"a.json": {"uri": "app://x", "name": "x", "x-mcp-codegen-complete": ["day"]}},
        "resources/a.json#/x-mcp-codegen-complete: error: x-mcp-codegen-complete belongs on a"
        " resource template",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_completion_requests_are_located_errors(case: str, tmp_path: Path) -> None:
    prompts, resources, expected = CASES[case]
    root = _project(tmp_path, prompts, resources)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert expected in err, err


def test_stubs_are_written_dispatched_kept_and_orphaned(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.json": PROMPT}, {"a.json": LOGS})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers_path = root / "server" / "handlers.py"
    handlers = handlers_path.read_text(encoding="utf-8")
    assert (
        '# mcp-codegen completion: "prompt review language"\n'
        "def complete_review_language(*, value: str, arguments: CompletionArguments)"
        " -> CompletionReturn:"
    ) in handlers
    assert f'# mcp-codegen completion: "resource {TEMPLATE} day"\ndef complete_logs_day(' in (
        handlers
    )
    assert "complete_review_style" not in handlers  # the enum completes it
    dispatch = (root / "server" / "_dispatch.py").read_text(encoding="utf-8")
    assert '"prompt review language": "complete_review_language"' in dispatch
    assert f'"resource {TEMPLATE} day": "complete_logs_day"' in dispatch
    types = (root / "server" / "types.py").read_text(encoding="utf-8")
    assert "CompletionArguments" in types and "CompletionReturn" in types

    # The author's body survives a rebuild and a change of the prompt.
    body = 'return [n for n in ("python", "pascal") if n.startswith(value)]'
    handlers = handlers.replace('raise NotImplementedError("prompt review language")', body)
    handlers_path.write_text(handlers, encoding="utf-8")
    changed = {**PROMPT, "description": "Review code."}
    (root / "prompts" / "a.json").write_text(json.dumps(changed), encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    assert body in handlers_path.read_text(encoding="utf-8")
    assert run_cli("check", "-q", str(root))[0] == 0

    # No longer asked for: the handler is orphaned with its body, never deleted.
    plain = {**PROMPT, "arguments": [{"name": "language"}, PROMPT["arguments"][1]]}
    (root / "prompts" / "a.json").write_text(json.dumps(plain), encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = handlers_path.read_text(encoding="utf-8")
    assert body in handlers
    assert handlers.index("orphaned handlers") < handlers.index("def complete_review_language(")
    assert '"prompt review language"' not in (root / "server" / "_dispatch.py").read_text(
        encoding="utf-8"
    )


def test_the_key_is_never_published(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.json": PROMPT}, {"a.json": LOGS})
    assert run_cli("build", "-q", str(root))[0] == 0
    script = (
        "import json; from server._dispatch import SERVER\n"
        "p = [f for e in SERVER.prompts.by_name.values() for f in e.published.values()]\n"
        "r = [f for e in SERVER.resources.templates for f in e.published.values()]\n"
        "print(json.dumps([p, r]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert "x-mcp-codegen" not in out and "language" in out and "logs" in out
