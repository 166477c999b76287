"""What a build hands ruff stays cheap to format: no statement of generated code longer than
STATEMENT_BOUND characters outside its string tokens. ruff's time on a statement grows
with the code it must lay out, not with the length of a string token: Stripe's import once
put its client's tool schemas into one Python literal of 21 MB, and ruff spent about 330 of
the build's 433 CPU seconds on it (docs/benchmarks.md, "OpenAPI import"). Data that grows
with the tool files (schemas, dispatch rows) belongs in a JSON string token instead."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.render import formatting
from tests.support.projects import run_cli, tool, write_project

# Characters of code (names, operators, numbers; not strings or comments) in one
# statement. The widest statement of a generated module in the goldens is a method
# signature of a few hundred characters; a tool's schemas printed as a Python literal
# pass this with one tool of ~200 properties.
STATEMENT_BOUND = 10_000

_TEXT = {tokenize.STRING, tokenize.COMMENT}
_TEXT |= {getattr(tokenize, name) for name in ("FSTRING_MIDDLE",) if hasattr(tokenize, name)}
_LAYOUT = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE}


def longest_statement(source: str) -> tuple[int, int]:
    """(characters of code outside string tokens and comments, first line) of the
    longest logical line of ``source``."""
    longest, start, size, first = 0, 1, 0, 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if first == 0 and token.type not in _LAYOUT:
            first = token.start[0]
        if token.type == tokenize.NEWLINE:
            if size > longest:
                longest, start = size, first
            size, first = 0, 0
        elif token.type not in _TEXT:
            size += len(token.string)
    return max(longest, size), start


def _wide_output(fields: int) -> dict[str, Any]:
    # Object schemas with many small properties: little string text, much structure,
    # as large API documents' responses are.
    properties = {
        f"field_{n}": {"type": "integer", "minimum": 0, "maximum": n + 1} for n in range(fields)
    }
    return {"type": "object", "properties": properties, "required": ["field_0"]}


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(name, text) of every module the build hands ruff, through stdin or a folder."""
    seen: list[tuple[str, str]] = []
    run = formatting._run

    def watching(arguments: Sequence[str], folder: str, source: bytes | None = None) -> bytes:
        if source is not None:
            seen.append(("stdin", source.decode("utf-8")))
        else:
            for path in sorted((Path(folder) / "modules").glob("*.py")):
                seen.append((path.name, path.read_text(encoding="utf-8")))
        return run(arguments, folder, source)

    monkeypatch.setattr(formatting, "_run", watching)
    return seen


def test_a_build_never_hands_ruff_a_statement_over_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handed: list[tuple[str, str]]
) -> None:
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    tools = {f"wide_{n}.json": tool(f"wide_{n}", outputSchema=_wide_output(300)) for n in range(3)}
    root = write_project(tmp_path / "project", tools)
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", "-q")
    assert code == 0, err
    # The bound matters here: the same schemas printed as a Python literal, as the
    # client once printed them, make one statement over it.
    schemas = {
        d["name"]: {"inputSchema": d["inputSchema"], "outputSchema": d["outputSchema"]}
        for d in tools.values()
    }
    assert longest_statement(f"_TOOL_SCHEMAS = {schemas!r}\n")[0] > STATEMENT_BOUND
    texts = [text for _, text in handed]
    assert any("_TOOL_SCHEMAS" in text for text in texts), "the client was not formatted"
    for name, text in handed:
        size, line = longest_statement(text)
        first = text.splitlines()[line - 1][:80] if text else ""
        assert size <= STATEMENT_BOUND, f"{name}: {size} characters from line {line}: {first}"
