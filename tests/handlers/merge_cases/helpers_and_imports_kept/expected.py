#!/usr/bin/env python3
"""Handlers of the weather server: fill in the bodies."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import Units

log = logging.getLogger(__name__)
API_KEY = os.environ.get("WEATHER_API_KEY", "")


class WeatherClient:
    """A helper class of the user's."""

    def get(self, city: str) -> float:
        return 20.0


_client = WeatherClient()


# mcp-codegen tool: "get_weather"
def get_weather(*, city: str, units: Units = "celsius", lang: str = "en") -> str:
    """Current weather for a city."""
    log.info("weather for %s", city)
    return _format(_client.get(city), units)


def _format(value: float, units: str) -> str:
    return f"{value} {units}"


# mcp-codegen tool: "echo"
def echo(*, text: str) -> str:
    """Echo the text."""
    raise NotImplementedError("echo")


if __name__ == "__main__":
    print(get_weather(city="Paris"))


# --- mcp-codegen: orphaned handlers (tools removed from schemas); delete when done ---


# mcp-codegen tool: "ping"
def ping() -> str:
    """Answer pong."""
    return "pong"
