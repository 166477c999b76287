"""Tool, prompt and resource handlers of resource-server: the one module you edit.

mcp-codegen wrote a stub for each tool, prompt and resource reader. Fill in the
bodies; `mcp-codegen build` keeps them, updating only each handler's parameters and
return type (and the import from `.types`) when the schemas change. A handler may
be `async def`. What handler code may use (content, results, errors, the context)
is in `.api`.

Types only annotations name are imported under `if TYPE_CHECKING:`, so the server
starts without loading them; a build moves a type your code uses at run time
(`Output(...)`, `isinstance`) to a plain import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import (
        CompletionArguments,
        CompletionReturn,
        ForecastResourceUnits,
        ResourceReturn,
        ToolReturn,
    )


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


# mcp-codegen completion: "resource weather://forecast/{city}{?units} city"
def complete_forecast_city(*, value: str, arguments: CompletionArguments) -> CompletionReturn:
    """Completions of variable 'city' of resource template
    'weather://forecast/{city}{?units}'.

    `value` is the text typed so far, `arguments` the arguments already chosen;
    the first 100 values returned are sent.
    """
    raise NotImplementedError("resource weather://forecast/{city}{?units} city")
