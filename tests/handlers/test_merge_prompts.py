"""Prompt handlers live in handlers.py beside the tools', under their own marker, and the
same merge keeps them: bodies across a regeneration that adds an argument, a tool and a
prompt of one name apart, a removed prompt orphaned, never deleted."""

from __future__ import annotations

import pytest

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, merge, render_new
from mcp_schemagen.handlers.spec import MergeConflict

IMPORTS = "from .types import PromptReturn, ToolReturn"


def prompt(function: str, name: str, parameters: str) -> HandlerSpec:
    return HandlerSpec(function, name, parameters, "PromptReturn", None, kind="prompt")


def tool(function: str, name: str) -> HandlerSpec:
    return HandlerSpec(function, name, "*, text: str", "ToolReturn", None)


def spec(*handlers: HandlerSpec) -> HandlerModuleSpec:
    return HandlerModuleSpec('"""Handlers."""', IMPORTS, handlers)


BODY = '    return f"Review this {language}:\\n{code}"  # my own words\n'


def _with_body(text: str, function: str) -> str:
    marker = f"def {function}("
    start = text.index(marker)
    end = text.index("raise NotImplementedError", start)
    line_end = text.index("\n", end) + 1
    return text[:end].rstrip(" ") + BODY.lstrip(" ").join(["    ", ""]) + text[line_end:]


def test_a_prompt_body_survives_a_new_argument() -> None:
    before = spec(
        tool("summarize", "summarize"),
        prompt("review", "review", "*, code: str, language: str | None = None"),
    )
    text = _with_body(render_new(before), "review")
    assert '# mcp-codegen prompt: "review"' in text
    after = spec(
        tool("summarize", "summarize"),
        prompt(
            "review",
            "review",
            "*, code: str, language: str | None = None, focus: str | None = None",
        ),
    )
    merged = merge(text, after)
    assert BODY in merged.text
    assert "focus: str | None = None" in merged.text
    assert merged.text.count("def review(") == 1
    assert not merged.warnings


def test_a_tool_and_a_prompt_of_one_name_are_two_handlers() -> None:
    both = spec(tool("summarize", "summarize"), prompt("summarize_prompt", "summarize", ""))
    text = render_new(both)
    assert '# mcp-codegen tool: "summarize"\ndef summarize(' in text
    assert '# mcp-codegen prompt: "summarize"\ndef summarize_prompt(' in text
    assert merge(text, both).text == text


def test_a_removed_prompt_is_orphaned_with_its_body() -> None:
    before = spec(
        tool("summarize", "summarize"),
        prompt("review", "review", "*, code: str, language: str | None = None"),
    )
    text = _with_body(render_new(before), "review")
    merged = merge(text, spec(tool("summarize", "summarize")))
    assert BODY in merged.text
    assert merged.text.index("orphaned handlers") < merged.text.index("def review(")
    assert any("'review'" in w for w in merged.warnings)


def test_a_prompt_argument_gone_while_the_body_reads_it_stops_the_merge() -> None:
    before = spec(prompt("review", "review", "*, code: str, language: str | None = None"))
    text = _with_body(render_new(before), "review")
    with pytest.raises(MergeConflict) as raised:
        merge(text, spec(prompt("review", "review", "*, code: str")))
    assert raised.value.function == "review"
    assert (
        "parameter 'language' (line" in raised.value.reason
        and "is not among the arguments of prompt 'review', so the build would remove it from"
        " the signature, but the body still uses it"
        in raised.value.reason
        and "add it to the prompt's arguments" in raised.value.reason
    ), raised.value.reason
