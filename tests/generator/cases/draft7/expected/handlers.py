"""Tool handlers of draft7: the one module of this package you edit.

mcp-codegen wrote a stub for each tool. Fill in the bodies; `mcp-codegen build` keeps
them, updating only each handler's parameters and return type (and the import from
`.types`) when the tool schemas change. A handler may be `async def`. What handler
code may use (content, results, errors, the context) is in `.api`.
"""

from __future__ import annotations

from .types import Tag, ToolReturn


# mcp-codegen tool: "tag"
def tag(*, item: str, tags: list[Tag]) -> ToolReturn:
    """Tag an item (a draft-07 schema with definitions)."""
    raise NotImplementedError("tag")
