"""A tool renamed in its file with its inputSchema unchanged (the evidence `mcp-codegen
breaking` reports as "renamed to ...? same inputSchema"): the build moves the handler, body
and all, to the new name, instead of orphaning it behind a fresh raising stub; where the
evidence fits more than one way it stops (exit 3) and says how to settle it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.projects import run_cli, tool, write_project

SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "status": {"enum": ["open", "closed"]}},
    "required": ["query"],
}
BODY = 'return f"found {query} {status}"'


def _built(tmp_path: Path, **tools: dict[str, object]) -> Path:
    root = write_project(tmp_path / "p", {f"{name}.json": t for name, t in tools.items()})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    for name in tools:
        source = source.replace(f'raise NotImplementedError("{name}")', BODY.replace("found", name))
    handlers.write_text(source, encoding="utf-8")
    return root


def _rename(root: Path, file: str, new_name: str) -> None:
    path = root / "tools" / f"{file}.json"
    definition = json.loads(path.read_text(encoding="utf-8"))
    definition["name"] = new_name
    path.write_text(json.dumps(definition), encoding="utf-8")


def test_a_renamed_tool_takes_its_handler_along(tmp_path: Path) -> None:
    root = _built(
        tmp_path,
        search_tickets=tool("search_tickets", inputSchema=SCHEMA),
        echo=tool(),
    )
    _rename(root, "search_tickets", "find_tickets")
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert (
        "handler 'search_tickets': tool 'search_tickets' was renamed to 'find_tickets' (same"
        " inputSchema); its handler is now 'find_tickets', body kept" in err
    ), err
    source = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert '# mcp-codegen tool: "find_tickets"\ndef find_tickets(' in source
    assert 'return f"search_tickets {query} {status}"' in source  # the body, kept
    assert "search_tickets(" not in source and "NotImplementedError" not in source
    assert "orphaned" not in source.lower()
    # The renamed handler serves the new tool; the package imports and type-checks.
    check = subprocess.run(
        [sys.executable, "-c", "import server.handlers as h; print(h.find_tickets(query='q'))"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.stdout.strip() == "search_tickets q None", check.stderr
    assert run_cli("check", str(root))[0] == 0
    # A second build changes nothing.
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0 and (root / "server" / "handlers.py").read_text(encoding="utf-8") == source


def test_a_tool_renamed_with_a_new_inputschema_is_not_taken_for_a_rename(tmp_path: Path) -> None:
    root = _built(tmp_path, search_tickets=tool("search_tickets", inputSchema=SCHEMA))
    path = root / "tools" / "search_tickets.json"
    path.write_text(json.dumps(tool("find_tickets")), encoding="utf-8")
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    source = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert 'raise NotImplementedError("find_tickets")' in source
    assert 'return f"search_tickets {query} {status}"' in source  # in the orphan section


def test_two_tools_of_one_inputschema_renamed_at_once_stop_the_build(tmp_path: Path) -> None:
    root = _built(
        tmp_path,
        search_open=tool("search_open", inputSchema=SCHEMA),
        search_closed=tool("search_closed", inputSchema=SCHEMA),
    )
    before = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    _rename(root, "search_open", "find_open")
    _rename(root, "search_closed", "find_closed")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 3, err
    assert "all with the same inputSchema: which handler serves which new tool is not clear" in err
    assert "rename each handler by hand, its function and the marker above it" in err
    assert (root / "server" / "handlers.py").read_text(encoding="utf-8") == before
    # Settled by hand as the message says: the build goes through, bodies kept.
    settled = before.replace(
        'tool: "search_open"\ndef search_open(', 'tool: "find_open"\ndef find_open('
    )
    settled = settled.replace(
        'tool: "search_closed"\ndef search_closed(', 'tool: "find_closed"\ndef find_closed('
    )
    (root / "server" / "handlers.py").write_text(settled, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    source = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert 'return f"search_open {query} {status}"' in source
    assert "NotImplementedError" not in source


def test_a_renamed_prompt_takes_its_handler_along(tmp_path: Path) -> None:
    """The same evidence for a prompt: `breaking` asks "renamed to ...? same arguments"."""
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    (root / "prompts").mkdir()
    prompt = {"name": "review", "arguments": [{"name": "code", "required": True}]}
    path = root / "prompts" / "review.json"
    path.write_text(json.dumps(prompt), encoding="utf-8")
    assert run_cli("build", "-q", str(root))[0] == 0
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    handlers.write_text(
        source.replace('raise NotImplementedError("review")', 'return f"Review {code}"')
    )
    path.write_text(json.dumps({**prompt, "name": "code_review"}), encoding="utf-8")
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert (
        "handler 'review': prompt 'review' was renamed to 'code_review' (same arguments); its"
        " handler is now 'code_review', body kept" in err
    ), err
    source = handlers.read_text(encoding="utf-8")
    assert '# mcp-codegen prompt: "code_review"\ndef code_review(' in source
    assert 'return f"Review {code}"' in source and "NotImplementedError" not in source.replace(
        'NotImplementedError("echo")', ""
    )
