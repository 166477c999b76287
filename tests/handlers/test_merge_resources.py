"""Resource readers live in handlers.py beside tools and prompts, under their own marker
(the URI or URI template), and the same merge keeps them: bodies across a template that
gains a variable, a reader apart from a tool and a prompt of the same name, a removed
resource's reader orphaned, never deleted."""

from __future__ import annotations

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, merge, render_new

IMPORTS = "from .types import PromptReturn, ResourceReturn, ToolReturn"
TEMPLATE = "app://logs/{day}{?level}"


def reader(function: str, key: str, parameters: str) -> HandlerSpec:
    return HandlerSpec(function, key, parameters, "ResourceReturn", None, kind="resource")


def tool(function: str, name: str) -> HandlerSpec:
    return HandlerSpec(function, name, "*, text: str", "ToolReturn", None)


def spec(*handlers: HandlerSpec) -> HandlerModuleSpec:
    return HandlerModuleSpec('"""Handlers."""', IMPORTS, handlers)


BODY = '    return f"{day}: {level}"  # my own words\n'


def _with_body(text: str, function: str) -> str:
    start = text.index(f"def {function}(")
    end = text.index("raise NotImplementedError", start)
    line_end = text.index("\n", end) + 1
    return text[:end].rstrip(" ") + BODY.lstrip(" ").join(["    ", ""]) + text[line_end:]


def test_a_reader_body_survives_a_new_variable() -> None:
    before = spec(
        tool("echo", "echo"), reader("read_logs", TEMPLATE, "*, day: str, level: str | None = None")
    )
    text = _with_body(render_new(before), "read_logs")
    assert f'# mcp-codegen resource: "{TEMPLATE}"\ndef read_logs(' in text
    wider = "app://logs/{day}{?level,limit}"
    after = spec(
        tool("echo", "echo"),
        reader(
            "read_logs", wider, "*, day: str, level: str | None = None, limit: str | None = None"
        ),
    )
    merged = merge(text, after)
    assert BODY in merged.text
    assert f'# mcp-codegen resource: "{wider}"' in merged.text
    assert "limit: str | None = None" in merged.text
    assert merged.text.count("def read_logs(") == 1


def test_a_reader_is_apart_from_a_tool_and_a_prompt_of_one_name() -> None:
    prompt = HandlerSpec("echo_prompt", "echo", "", "PromptReturn", None, kind="prompt")
    both = spec(tool("echo", "echo"), prompt, reader("read_echo", "echo", ""))
    text = render_new(both)
    assert '# mcp-codegen tool: "echo"\ndef echo(' in text
    assert '# mcp-codegen prompt: "echo"\ndef echo_prompt(' in text
    assert '# mcp-codegen resource: "echo"\ndef read_echo(' in text
    assert merge(text, both).text == text


def test_a_removed_resource_orphans_its_reader_with_its_body() -> None:
    before = spec(
        tool("echo", "echo"), reader("read_logs", TEMPLATE, "*, day: str, level: str | None = None")
    )
    text = _with_body(render_new(before), "read_logs")
    merged = merge(text, spec(tool("echo", "echo")))
    assert BODY in merged.text
    assert merged.text.index("orphaned handlers") < merged.text.index("def read_logs(")
    assert any("'read_logs'" in w or TEMPLATE in w for w in merged.warnings), merged.warnings
