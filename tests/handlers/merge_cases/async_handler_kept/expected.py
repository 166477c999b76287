"""Handlers of the weather server: fill in the bodies."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import Units


# mcp-codegen tool: "get_weather"
async def get_weather(*, city: str, units: Units = "celsius", hourly: bool = False) -> str:
    """Current weather for a city."""
    # Look the city up first: the API wants an id.
    city_id = CITY_IDS.get(city.lower())
    if city_id is None:
        return f"unknown city {city!r}"
    temperature = _fetch(city_id, units)
    return f"{temperature:.1f} degrees ({units})"


# mcp-codegen tool: "ping"
async def ping() -> str:
    """Answer pong."""
    return "pong"  # the simplest tool


CITY_IDS = {"paris": 1, "tokyo": 2}


def _fetch(city_id: int, units: str) -> float:
    """Pretend to call a weather API."""
    return 21.5 if units == "celsius" else 70.7
