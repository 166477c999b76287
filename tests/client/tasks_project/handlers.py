"""Handlers of the typed client's tasks fixture (tests/client/test_tasks_client.py)."""

from __future__ import annotations

import asyncio

from tasks_server.api import ProtocolError, ToolError, form, get_context

from .types import MakeReportOutput

_CONFIRM = form({"confirm": {"type": "boolean"}})


# mcp-codegen tool: "make_report"
async def make_report(*, rows: int, seconds: float | None = None) -> MakeReportOutput:
    await asyncio.sleep(seconds or 0)
    return {"rows": rows, "summary": f"{rows} rows counted"}


# mcp-codegen tool: "confirm_delete"
async def confirm_delete(*, filename: str) -> str:
    answer = await get_context().elicit(f"Delete {filename}?", _CONFIRM, key="confirm")
    confirmed = answer.accepted and (answer.content or {}).get("confirm") is True
    return f"deleted {filename}" if confirmed else f"kept {filename}"


# mcp-codegen tool: "failing_job"
async def failing_job(*, protocol: bool | None = None) -> str:
    await asyncio.sleep(0.05)
    if protocol:
        raise ProtocolError(-32603, "failing_job failed with a JSON-RPC error")
    raise ToolError("failing_job failed, as it always does")


# mcp-codegen tool: "plain_echo"
def plain_echo(*, text: str) -> str:
    return text
