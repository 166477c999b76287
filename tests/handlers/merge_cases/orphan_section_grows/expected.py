"""Handlers of the weather server: fill in the bodies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .types import Units

GetAlertsOutput = Any  # mcp-codegen: stands in for a type of a removed tool


# mcp-codegen tool: "get_weather"
def get_weather(*, city: str, units: Units = "celsius") -> str:
    """Current weather for a city."""
    raise NotImplementedError("get_weather")


# mcp-codegen tool: "echo"
def echo(*, text: str) -> str:
    """Echo the text."""
    raise NotImplementedError("echo")


# --- mcp-codegen: orphaned handlers (tools removed from schemas); delete when done ---


# mcp-codegen tool: "old_tool"
def old_tool() -> str:
    return "still here"


# mcp-codegen tool: "ping"
def ping() -> str:
    """Answer pong."""
    raise NotImplementedError("ping")


# mcp-codegen tool: "get_alerts"
def get_alerts(*, region: str) -> GetAlertsOutput:
    """Weather alerts."""
    return GetAlertsOutput(alerts=[])
