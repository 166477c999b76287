"""Completion handlers live in handlers.py beside tools, prompts and readers, under their
own marker (`# mcp-codegen completion: "prompt NAME ARGUMENT"`), and the same merge keeps
them: bodies across a signature the generator changes, a handler apart from a tool of the
same text, a handler no longer asked for orphaned, never deleted."""

from __future__ import annotations

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, merge, render_new

IMPORTS = "from .types import CompletionArguments, CompletionReturn, ToolReturn"
PARAMETERS = "*, value: str, arguments: CompletionArguments"
KEY = "prompt review language"
BODY = '    return ["python"]  # my own words\n'


def completer(function: str, key: str, parameters: str = PARAMETERS) -> HandlerSpec:
    return HandlerSpec(function, key, parameters, "CompletionReturn", None, kind="completion")


def tool(function: str, name: str) -> HandlerSpec:
    return HandlerSpec(function, name, "*, text: str", "ToolReturn", None)


def spec(*handlers: HandlerSpec) -> HandlerModuleSpec:
    return HandlerModuleSpec('"""Handlers."""', IMPORTS, handlers)


def _with_body(text: str, function: str) -> str:
    start = text.index(f"def {function}(")
    end = text.index("raise NotImplementedError", start)
    line_end = text.index("\n", end) + 1
    return text[:end].rstrip(" ") + BODY.lstrip(" ").join(["    ", ""]) + text[line_end:]


def test_a_body_survives_a_signature_change() -> None:
    before = spec(tool("echo", "echo"), completer("complete_review_language", KEY, "*, value: str"))
    text = _with_body(render_new(before), "complete_review_language")
    assert f'# mcp-codegen completion: "{KEY}"\ndef complete_review_language(' in text
    merged = merge(text, spec(tool("echo", "echo"), completer("complete_review_language", KEY)))
    assert BODY in merged.text
    assert "arguments: CompletionArguments" in merged.text
    assert merged.text.count("def complete_review_language(") == 1


def test_a_completion_handler_is_apart_from_a_tool_of_the_same_text() -> None:
    both = spec(tool("echo", KEY.replace(" ", "_")), completer("complete_echo", KEY))
    text = render_new(both)
    assert f'# mcp-codegen completion: "{KEY}"\ndef complete_echo(' in text
    assert merge(text, both).text == text


def test_a_handler_no_longer_asked_for_is_orphaned_with_its_body() -> None:
    before = spec(tool("echo", "echo"), completer("complete_review_language", KEY))
    text = _with_body(render_new(before), "complete_review_language")
    merged = merge(text, spec(tool("echo", "echo")))
    assert BODY in merged.text
    assert merged.text.index("orphaned handlers") < merged.text.index(
        "def complete_review_language("
    )
    assert any("complete_review_language" in w or KEY in w for w in merged.warnings)
