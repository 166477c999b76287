"""Tool handlers of the conformance fixture: what the suite's server scenarios check.

Copied into the fixture's package before each build (tests/e2e/test_conformance.py);
mcp-codegen keeps these bodies and updates only the signatures.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys

from conformance_server.api import (
    ProtocolError,
    ToolError,
    audio,
    embedded_text,
    get_context,
    image,
    text,
)

from .types import ContentBlock, JsonSchema202012ToolInput

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
