"""Handlers of the weather server: fill in the bodies."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import Units


# mcp-codegen tool: "get_weather"
def get_weather(*, city: str, units: Units = "celsius") -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


# mcp-codegen tool: "ping"
def ping() -> str:
    """Answer pong."""
    return "pong"  # the simplest tool
