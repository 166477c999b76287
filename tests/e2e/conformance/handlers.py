"""Tool, prompt and resource handlers of the conformance fixture: what the suite checks.

Copied into the fixture's package before each build (tests/e2e/test_conformance.py);
mcp-codegen keeps these bodies and updates only the signatures.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
from typing import Any

from conformance_server.api import (
    Elicit,
    ListRoots,
    ProtocolError,
    Sample,
    ToolError,
    audio,
    embedded_text,
    form,
    get_context,
    image,
    notify_list_changed,
    text,
    user,
)

from .types import ContentBlock, JsonSchema202012ToolInput, PromptReturn, ResourceReturn

# A 1x1 red PNG and a minimal WAV, as the suite's reference server sends them.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
MISSING_CAPABILITY = -32021


# mcp-codegen tool: "json_schema_2020_12_tool"
def json_schema_2020_12_tool(arguments: JsonSchema202012ToolInput) -> str | list[ContentBlock]:
    """Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"""
    return f"JSON Schema 2020-12 tool called with: {json.dumps(arguments)}"


# mcp-codegen tool: "slow_job"
async def slow_job(*, seconds: float = 30) -> str | list[ContentBlock]:
    """Reports progress 0, then sleeps; prints 'slow_job: cancelled' to stderr when cancelled (scale-out and cancellation tests)"""
    get_context().report_progress(0, message="started")  # tells a test the call runs
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        print("slow_job: cancelled", file=sys.stderr, flush=True)
        raise
    return f"slept {seconds} s"


# mcp-codegen tool: "test_audio_content"
def test_audio_content() -> str | list[ContentBlock]:
    """Tests audio content response"""
    return [audio(WAV, "audio/wav")]


# mcp-codegen tool: "test_embedded_resource"
def test_embedded_resource() -> str | list[ContentBlock]:
    """Tests embedded resource content response"""
    return [
        embedded_text(
            "test://embedded-resource",
            "This is an embedded resource content.",
            mime_type="text/plain",
        )
    ]


# mcp-codegen tool: "test_error_handling"
def test_error_handling() -> str | list[ContentBlock]:
    """Tests error response handling"""
    raise ToolError("This tool intentionally returns an error for testing")


# mcp-codegen tool: "test_header_params"
def test_header_params(
    *, region: str, query: str, count: int | None = None, dry_run: bool | None = None
) -> str | list[ContentBlock]:
    """Echoes its parameters; region and dry_run are mirrored into Mcp-Param-* headers (x-mcp-header)"""
    return f"{query} in {region} (count {count}, dry run {dry_run})"


# mcp-codegen tool: "test_image_content"
def test_image_content() -> str | list[ContentBlock]:
    """Tests image content response"""
    return [image(PNG, "image/png")]


# mcp-codegen tool: "test_logging_tool"
def test_logging_tool() -> str | list[ContentBlock]:
    """Diagnostic logging validator tool: logs only when the request asks for a log level"""
    get_context().log("info", "Diagnostic trace logging activated")
    return "Logging evaluated"


# mcp-codegen tool: "test_missing_capability"
def test_missing_capability() -> str | list[ContentBlock]:
    """Test tool requiring sampling: fails with -32021 unless the client declares the sampling capability"""
    if "sampling" not in get_context().client_capabilities:
        raise ProtocolError(
            MISSING_CAPABILITY,
            "Missing required client capability: sampling",
            {"requiredCapabilities": {"sampling": {}}},
        )
    return "Success"


# mcp-codegen tool: "test_multiple_content_types"
def test_multiple_content_types() -> str | list[ContentBlock]:
    """Tests response with multiple content types (text, image, resource)"""
    return [
        text("Multiple content types test:"),
        image(PNG, "image/png"),
        embedded_text(
            "test://mixed-content-resource",
            json.dumps({"test": "data", "value": 123}),
            mime_type="application/json",
        ),
    ]


# mcp-codegen tool: "test_reconnection"
async def test_reconnection() -> str | list[ContentBlock]:
    """Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes the stream mid-call and sends the result after the client reconnects."""
    get_context().close_stream()
    await asyncio.sleep(0.1)  # the client reconnects meanwhile (it was told retry)
    return (
        "Reconnection test completed successfully. If you received this, the client "
        "properly reconnected after stream closure."
    )


# mcp-codegen tool: "test_simple_text"
def test_simple_text() -> str | list[ContentBlock]:
    """Tests simple text content response"""
    return "This is a simple text response for testing."


# mcp-codegen tool: "test_tool_with_logging"
async def test_tool_with_logging() -> str | list[ContentBlock]:
    """Tests tool that emits log messages during execution"""
    context = get_context()
    context.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    context.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    context.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


# mcp-codegen tool: "test_tool_with_progress"
async def test_tool_with_progress() -> str | list[ContentBlock]:
    """Tests tool that reports progress notifications"""
    context = get_context()
    for step in (0, 50, 100):
        context.report_progress(step, total=100, message=f"Completed step {step} of 100")
        if step < 100:
            await asyncio.sleep(0.05)
    return str(context.progress_token)


# ------------------------------------------------------------------ asking the client


def _form(fields: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return form(fields, required=required or [])


# mcp-codegen tool: "test_sampling"
async def test_sampling(*, prompt: str) -> str | list[ContentBlock]:
    """Asks the client's model (sampling/createMessage) with the prompt."""
    answer = await get_context().sample([prompt], max_tokens=100)
    return f"LLM response: {answer.text}"


# mcp-codegen tool: "test_elicitation"
async def test_elicitation(*, message: str) -> str | list[ContentBlock]:
    """Asks the user (elicitation/create) for a username and an email."""
    schema = _form(
        {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        ["username", "email"],
    )
    answer = await get_context().elicit(message, schema)
    return f"User response: action={answer.action}, content={answer.content}"


# mcp-codegen tool: "test_elicitation_sep1034_defaults"
async def test_elicitation_sep1034_defaults() -> str | list[ContentBlock]:
    """Elicits a form with a default for every primitive type (SEP-1034)."""
    schema = _form(
        {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {
                "type": "string",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "default": True},
        }
    )
    answer = await get_context().elicit("Please review your details", schema)
    return f"Elicitation completed: action={answer.action}, content={answer.content}"


# mcp-codegen tool: "test_elicitation_sep1330_enums"
async def test_elicitation_sep1330_enums() -> str | list[ContentBlock]:
    """Elicits a form with all five enum forms (SEP-1330)."""
    options = [
        {"const": "value1", "title": "First Option"},
        {"const": "value2", "title": "Second Option"},
    ]
    schema = _form(
        {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": options},
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {"type": "array", "items": {"anyOf": options}},
        }
    )
    answer = await get_context().elicit("Pick your options", schema)
    return f"Elicitation completed: action={answer.action}, content={answer.content}"


_NAME = _form({"name": {"type": "string"}}, ["name"])
_OK = _form({"ok": {"type": "boolean"}}, ["ok"])


# mcp-codegen tool: "test_input_required_result_elicitation"
async def test_input_required_result_elicitation() -> str | list[ContentBlock]:
    """Asks the user's name under the key user_name."""
    answer = await get_context().elicit("What is your name?", _NAME, key="user_name")
    return f"Hello, {(answer.content or {}).get('name')}!"


# mcp-codegen tool: "test_input_required_result_list_roots"
async def test_input_required_result_list_roots() -> str | list[ContentBlock]:
    """Asks the client's roots under the key client_roots."""
    roots = await get_context().list_roots(key="client_roots")
    return "Roots: " + ", ".join(root["uri"] for root in roots)


# mcp-codegen tool: "test_input_required_result_sampling"
async def test_input_required_result_sampling() -> str | list[ContentBlock]:
    """Asks the client's model under the key capital_question."""
    answer = await get_context().sample(
        ["What is the capital of France?"], max_tokens=100, key="capital_question"
    )
    return answer.text


# mcp-codegen tool: "test_input_required_result_capabilities"
async def test_input_required_result_capabilities() -> str | list[ContentBlock]:
    """Asks only what the client declared it supports."""
    ctx = get_context()
    wanted = {
        "user_name": Elicit("What is your name?", _NAME),
        "greeting": Sample(["Generate a greeting"], max_tokens=50),
    }
    supported = {key: request for key, request in wanted.items() if ctx.client_supports(request)}
    answers = await ctx.ask(supported) if supported else {}
    return f"answered: {', '.join(sorted(answers)) or 'nothing'}"


# mcp-codegen tool: "test_input_required_result_request_state"
async def test_input_required_result_request_state() -> str | list[ContentBlock]:
    """Asks for a confirmation; the retry's requestState is verified."""
    answer = await get_context().elicit("Please confirm", _OK, key="confirm")
    # The answer arrived with a requestState the runtime verified (HMAC, bound, fresh).
    return f"state-ok: {answer.action}"


# mcp-codegen tool: "test_input_required_result_tampered_state"
async def test_input_required_result_tampered_state() -> str | list[ContentBlock]:
    """Asks for a confirmation; a tampered requestState is refused."""
    answer = await get_context().elicit("Please confirm", _OK, key="confirm")
    return f"confirmed: {answer.action}"


# mcp-codegen tool: "test_input_required_result_multi_round"
async def test_input_required_result_multi_round() -> str | list[ContentBlock]:
    """Asks a name, then a colour: two rounds."""
    ctx = get_context()
    name = await ctx.elicit("Step 1: What is your name?", _NAME, key="step1")
    colour = await ctx.elicit(
        "Step 2: What is your favorite color?",
        _form({"color": {"type": "string"}}, ["color"]),
        key="step2",
    )
    return f"{(name.content or {}).get('name')} likes {(colour.content or {}).get('color')}"


# mcp-codegen tool: "test_input_required_result_multiple_inputs"
async def test_input_required_result_multiple_inputs() -> str | list[ContentBlock]:
    """Asks an elicitation, a sampling and the roots in one round."""
    answers = await get_context().ask(
        {
            "user_name": Elicit("What is your name?", _NAME),
            "greeting": Sample(["Generate a greeting"], max_tokens=50),
            "client_roots": ListRoots(),
        }
    )
    return f"{answers['greeting'].text} {(answers['user_name'].content or {}).get('name')}"


# mcp-codegen tool: "test_streaming_elicitation"
async def test_streaming_elicitation() -> str | list[ContentBlock]:
    """Elicits mid-call: in 2026-07-28 the answer is an InputRequiredResult, never a request on the stream."""
    answer = await get_context().elicit("Continue?", _OK, key="continue")
    return f"continued: {answer.action}"


# mcp-codegen prompt: "test_simple_prompt"
def test_simple_prompt() -> PromptReturn:
    """A simple prompt without arguments"""
    return "This is a simple prompt for testing."


# mcp-codegen prompt: "test_prompt_with_arguments"
def test_prompt_with_arguments(*, arg1: str, arg2: str) -> PromptReturn:
    """A prompt with required arguments"""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


# mcp-codegen prompt: "test_prompt_with_embedded_resource"
def test_prompt_with_embedded_resource(*, resourceUri: str) -> PromptReturn:
    """A prompt that includes an embedded resource"""
    return [
        user(
            embedded_text(
                resourceUri, "Embedded resource content for testing.", mime_type="text/plain"
            )
        ),
        user("Please process the embedded resource above."),
    ]


# mcp-codegen prompt: "test_prompt_with_image"
def test_prompt_with_image() -> PromptReturn:
    """A prompt that includes image content"""
    return [user(image(PNG, "image/png")), user("Please analyze the image above.")]


# mcp-codegen prompt: "test_input_required_result_prompt"
async def test_input_required_result_prompt() -> PromptReturn:
    """A prompt that asks the user for context before it is rendered"""
    answer = await get_context().elicit(
        "What context should the prompt use?",
        form({"context": {"type": "string"}}, required=["context"]),
        key="user_context",
    )
    return f"Use this context: {(answer.content or {}).get('context')}"


# mcp-codegen tool: "test_trigger_tool_change"
def test_trigger_tool_change() -> str | list[ContentBlock]:
    """Diagnostic hook: announces that the tool list changed (notifications/tools/list_changed to listeners that asked for it)"""
    notify_list_changed("tools")
    return "Mutation triggered"


# mcp-codegen tool: "test_trigger_prompt_change"
def test_trigger_prompt_change() -> str | list[ContentBlock]:
    """Diagnostic hook: announces that the prompt list changed (notifications/prompts/list_changed to listeners that asked for it)"""
    notify_list_changed("prompts")
    return "Mutation triggered"


# mcp-codegen resource: "test://template/{id}/data"
def read_template_data(*, id: str) -> ResourceReturn:
    """A resource template with parameter substitution"""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


# ------------------------------------------------------------------ durable tasks (tasks-*)

_CONFIRM = _form({"confirm": {"type": "boolean"}, "name": {"type": "string"}})


# mcp-codegen tool: "greet"
def greet(*, name: str) -> str | list[ContentBlock]:
    """Says hello (sync only: never a task; tasks-* scenarios)"""
    return f"Hello, {name}!"


# mcp-codegen tool: "slow_compute"
async def slow_compute(*, seconds: float, label: str | None = None) -> str | list[ContentBlock]:
    """Sleeps the given seconds, then says so; may run as a task (tasks-* scenarios)"""
    await asyncio.sleep(seconds)
    return f"computed {label or 'result'} after {seconds:g} s"


# mcp-codegen tool: "failing_job"
def failing_job() -> str | list[ContentBlock]:
    """Always ends in a tool error (isError); runs only as a task (tasks-* scenarios)"""
    raise ToolError("failing_job failed, as it always does")


# mcp-codegen tool: "protocol_error_job"
def protocol_error_job() -> str | list[ContentBlock]:
    """Always fails with a JSON-RPC error; may run as a task (tasks-* scenarios)"""
    raise ProtocolError(-32603, "protocol_error_job failed with a JSON-RPC error")


# mcp-codegen tool: "confirm_delete"
async def confirm_delete(*, filename: str) -> str | list[ContentBlock]:
    """Asks the user to confirm deleting a file; may run as a task (tasks-mrtr-input)"""
    answer = await get_context().elicit(f"Delete {filename}?", _CONFIRM, key="confirm")
    confirmed = answer.accepted and (answer.content or {}).get("confirm") is True
    return f"deleted {filename}" if confirmed else f"kept {filename}"


# mcp-codegen tool: "multi_input"
async def multi_input() -> str | list[ContentBlock]:
    """Asks two questions at once; may run as a task (tasks-mrtr-input)"""
    ctx = get_context()
    first, second = await asyncio.gather(
        ctx.elicit("First name?", _CONFIRM, key="first"),
        ctx.elicit("Second name?", _CONFIRM, key="second"),
    )
    names = [(a.content or {}).get("name") for a in (first, second)]
    return "answered: " + ", ".join(str(n) for n in names)


# mcp-codegen tool: "test_tool_with_task"
async def test_tool_with_task() -> str | list[ContentBlock]:
    """Asks the user's name in the call's own rounds, then goes on as a task that greets them (tasks-mrtr-composition)"""
    ctx = get_context()
    answer = await ctx.elicit("What is your name?", _NAME, key="user_name")
    await ctx.start_task()  # x-mcp-codegen-task start "handler": the task begins here
    await asyncio.sleep(0.2)  # the long part, as the task
    return f"Hello, {(answer.content or {}).get('name')}!"


# mcp-codegen tool: "rerun_compute"
async def rerun_compute(*, seconds: float) -> str | list[ContentBlock]:
    """Sleeps the given seconds, then says so; safe to run again, so a task lost with its worker runs again elsewhere (tasks scale-out test)"""
    await asyncio.sleep(seconds)
    return f"computed after {seconds:g} s (pid {os.getpid()})"
