"""tools/call: the tool found, its arguments checked, then the handler run by the call
lifecycle every kind of handler shares (core/lifecycle.py), its outcome shaped into the
revision's CallToolResult (a failure is an ``isError`` result: DispatchTool.failure).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..asking.interaction import Channel
from ..asking.request_state import RequestStateSeal
from ..jsonrpc import Reply, RpcError
from ..protocol import INVALID_PARAMS, Revision
from ..registry import PublishedForms, ToolEntry
from ..session.request import RequestContext
from ..shorten import shorten
from .dispatch_tool import DispatchTool
from .serving import Serving


def dispatch_tools(
    entries: Sequence[ToolEntry], revisions: Sequence[Revision]
) -> dict[str, DispatchTool]:
    """The tools by name, each checked to have a definition fit for every revision."""
    wanted = {r.name for r in revisions}
    tools: dict[str, DispatchTool] = {}
    for entry in entries:
        if entry.name in tools:
            raise ValueError(f"two tools are named {entry.name!r}")
        missing = wanted - entry.published.keys()
        if missing:
            raise ValueError(f"tool {entry.name!r} has no definition for {sorted(missing)}")
        if isinstance(entry.published, PublishedForms):
            tools[entry.name] = DispatchTool(entry)  # publish_tool keeps only defined fields
            continue
        for revision in revisions:
            extra = entry.published[revision.name].keys() - revision.tool_fields
            if extra:
                raise ValueError(
                    f"tool {entry.name!r} as published for {revision.name} has fields that"
                    f" revision does not define: {sorted(extra)}"
                )
        tools[entry.name] = DispatchTool(entry)
    return tools


# What runs a call as a durable task (runtime/tasks/, when a tool may run as one), given
# the call's round channel: the reply (its CreateTaskResult) or None for a plain call.
AsTask = Callable[[DispatchTool, dict[str, Any], RequestContext, Channel | None], Reply | None]


class Calls(Serving):
    """Runs tools/call requests against ``tools``."""

    __slots__ = ("as_task", "tools")

    def __init__(
        self,
        tools: Mapping[str, DispatchTool],
        stamp: Mapping[str, Any],
        request_state: RequestStateSeal,
    ) -> None:
        super().__init__(stamp, request_state)
        self.tools = tools
        self.as_task: AsTask | None = None

    def call(self, request: RequestContext) -> Reply:
        params, revision = request.params, request.revision
        name = params.get("name")
        if type(name) is not str:
            raise RpcError(INVALID_PARAMS, "tools/call needs the tool's name")
        tool = self.tools.get(name)
        if tool is None:
            raise revision.unknown_tool(shorten(name))
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {name}: not a JSON object")
        problems = tool.invalid(arguments)
        if problems is not None:
            text = f"Invalid arguments for tool {name}: " + "; ".join(problems)
            return self.result(request, revision.invalid_arguments(text, problems))
        if self.as_task is not None:
            kwargs = tool.keyword_arguments(arguments)
            channel = self.channel(request, name)
            reply = self.as_task(tool, kwargs, request, channel)
            if reply is not None:
                return reply
            return self.run(tool, kwargs, name, request, channel)
        channel = self.channel(request, name)
        return self.run(tool, tool.keyword_arguments(arguments), name, request, channel)
