"""Handlers of the weather server: fill in the bodies."""

from __future__ import annotations


# mcp-codegen tool: "get_weather"
def get_weather(*, city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


# mcp-codegen tool: "ping"
def ping() -> str:
    """Answer pong."""
    return "pong"  # the simplest tool
