"""Tool handlers of structured: the one module of this package you edit.

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
    from .types import SlowStatsOutput, StatsOutput, ToolResult


# mcp-codegen tool: "slow_stats"
def slow_stats(*, values: list[float]) -> SlowStatsOutput | ToolResult:
    """Mean of a long series, as a task: the client gets start_slow_stats too."""
    raise NotImplementedError("slow_stats")


# mcp-codegen tool: "stats"
def stats(*, values: list[float]) -> StatsOutput | ToolResult:
    """Mean and spread of a series."""
    raise NotImplementedError("stats")
