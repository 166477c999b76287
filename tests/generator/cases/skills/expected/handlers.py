"""Tool handlers of skills-server: the one module of this package you edit.

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
    from .types import ToolReturn


# mcp-codegen tool: "echo"
def echo(*, text: str) -> ToolReturn:
    """Echo the text back."""
    raise NotImplementedError("echo")
