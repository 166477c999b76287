"""Tool, prompt and resource handlers of resource-server: the one module you edit.

mcp-codegen wrote a stub for each tool, prompt and resource reader. Fill in the
bodies; `mcp-codegen build` keeps them, updating only each handler's parameters and
return type (and the import from `.types`) when the schemas change. A handler may
be `async def`. What handler code may use (content, results, errors, the context)
is in `.api`.
"""

from __future__ import annotations

from .types import ForecastResourceUnits, ResourceReturn, ToolReturn


# mcp-codegen tool: "summarize"
def summarize(*, text: str) -> ToolReturn:
    """Summarize a text."""
    raise NotImplementedError("summarize")


# mcp-codegen resource: "weather://stations/latest"
def read_latest_readings() -> ResourceReturn:
    """The latest readings of every station."""
    raise NotImplementedError("weather://stations/latest")


# mcp-codegen resource: "weather://forecast/{city}{?units}"
def read_forecast(*, city: str, units: ForecastResourceUnits | None = None) -> ResourceReturn:
    """The forecast for a city.

    Args:
        city: The city's name.
        units: Temperature units.
    """
    raise NotImplementedError("weather://forecast/{city}{?units}")
