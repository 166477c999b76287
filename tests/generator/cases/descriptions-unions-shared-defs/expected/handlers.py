"""Tool handlers of weather: the one module of this package you edit.

mcp-codegen wrote a stub for each tool. Fill in the bodies; `mcp-codegen build` keeps
them, updating only each handler's parameters and return type (and the import from
`.types`) when the tool schemas change. A handler may be `async def`. What handler
code may use (content, results, errors, the context) is in `.api`.

Types only annotations name are imported under `if TYPE_CHECKING:`, so the server
starts without loading them; a build moves a type your code uses at run time
(`Output(...)`, `isinstance`) to a plain import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import (
        Place,
        PlanTripDestination,
        PlanTripOutput,
        PlanTripViaLatLon,
        PlanTripViaStation,
        ToolResult,
        ToolReturn,
    )


# mcp-codegen tool: "plan_trip"
def plan_trip(
    *,
    origin: Place,
    destination: Place | PlanTripDestination,
    days: int | None = None,
    via: PlanTripViaStation | PlanTripViaLatLon | None = None,
) -> PlanTripOutput | ToolResult:
    """Plan a trip between two places.

    Args:
        origin: Where the trip starts.
        destination: Where it ends: a place or coordinates.
        days: Length of the trip in days.
        via: A stop on the way: a station code, or coordinates.
    """
    raise NotImplementedError("plan_trip")


# mcp-codegen tool: "weather_at"
def weather_at(*, where: Place) -> ToolReturn:
    """Weather at a place."""
    raise NotImplementedError("weather_at")
