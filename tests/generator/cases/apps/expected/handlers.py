"""Tool handlers of counter-app: the one module of this package you edit.

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
    from .types import CounterHistoryOutput, IncrementOutput, ShowCounterOutput, ToolResult


# mcp-codegen tool: "counter_history"
def counter_history(*, limit: int = 10) -> CounterHistoryOutput | ToolResult:
    """The counter's past values, for the view's chart."""
    raise NotImplementedError("counter_history")


# mcp-codegen tool: "increment"
def increment(*, value: int, note: str | None = None) -> IncrementOutput | ToolResult:
    """Add one to the counter (the view's button)."""
    raise NotImplementedError("increment")


# mcp-codegen tool: "show_counter"
def show_counter(*, start: int) -> ShowCounterOutput | ToolResult:
    """Show the counter in its view.

    Args:
        start: The first value.
    """
    raise NotImplementedError("show_counter")
