"""The tools/call lifecycle: arguments checked, the handler run (on the loop, in a worker
or as a task), its outcome shaped into the revision's result, cancellation honoured.

A call that finishes at once is answered at once (bytes); one still running (an async
handler, a sync one in a worker thread) becomes a task the session tracks, so
``notifications/cancelled`` can cancel it, and its reply is that task.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from .. import jsonrpc
from ..asking.interaction import Channel, Interrupt, round_channel
from ..asking.questions import ClientCapabilityMissing
from ..asking.request_state import RequestStateSeal
from ..context import Context, enter, leave
from ..jsonrpc import Reply, RequestId, RpcError, is_request_id
from ..protocol import INVALID_PARAMS, Revision
from ..registry import ToolEntry
from ..session import Session
from ..shorten import shorten
from ..workers import run_in_worker
from .dispatch_tool import DispatchTool
from .eager import start_task

_PLAIN = frozenset({str, dict, list, type(None)})  # return values that are never awaitable


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
        for revision in revisions:
            extra = entry.published[revision.name].keys() - revision.tool_fields
            if extra:
                raise ValueError(
                    f"tool {entry.name!r} as published for {revision.name} has fields that"
                    f" revision does not define: {sorted(extra)}"
                )
        tools[entry.name] = DispatchTool(entry)
    return tools


class Calls:
    """Runs tools/call requests against ``tools``; ``stamp`` is the 2026-07-28 result
    ``_meta``, ``request_state`` seals a 2026-07-28 call's answers between rounds."""

    __slots__ = ("_stamp", "request_state", "tools")

    def __init__(
        self,
        tools: Mapping[str, DispatchTool],
        stamp: Mapping[str, Any],
        request_state: RequestStateSeal,
    ) -> None:
        self.tools = tools
        self._stamp = stamp
        self.request_state = request_state

    def call(
        self,
        request_id: RequestId,
        params: dict[str, Any],
        meta: dict[str, Any] | None,
        revision: Revision,
        log_rank: int | None,
        session: Session,
    ) -> Reply:
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
            body = revision.invalid_arguments(text, problems)
            return jsonrpc.result(request_id, revision.stamp(body, self._stamp))
        channel = round_channel(params, meta, revision, self.request_state, name)
        kwargs = tool.keyword_arguments(arguments)
        token = None if meta is None else meta.get("progressToken")
        token = token if is_request_id(token) else None
        context = Context(session, revision, request_id, name, token, log_rank, channel)
        # The context is entered around the call, and a task made here copies it, so an
        # async handler sees it for its whole run.
        entered = enter(context)
        try:
            placement = tool.placement
            if placement is not None:  # a sync handler may block: not on the event loop...
                if not placement.inline:
                    running = run_in_worker(tool.handler, kwargs, placement)
                    return self._start(tool, running, request_id, revision, session, channel)
                # ...unless its calls in workers were all quick (workers.Placement).
                started = time.perf_counter()
                try:
                    value = tool.handler(**kwargs)
                except (Interrupt, ClientCapabilityMissing, asyncio.CancelledError) as stop:
                    # What a worker's task makes of these (questions, a failure), it does here.
                    return self._start(tool, _raised(stop), request_id, revision, session, channel)
                finally:
                    placement.loop_call_took(time.perf_counter() - started)
                if _awaitable(value):
                    return self._start(tool, value, request_id, revision, session, channel)
                return tool.response(value, request_id, revision, self._stamp)
            value = tool.handler(**kwargs)
            if tool.is_async or _awaitable(value):
                return self._start(tool, value, request_id, revision, session, channel)
        except RpcError:
            raise  # a handler's ProtocolError: the call fails with that JSON-RPC error
        except Exception as exc:
            value = tool.failure(exc)
        finally:
            leave(entered)
        return tool.response(value, request_id, revision, self._stamp)

    def _start(
        self,
        tool: DispatchTool,
        running: Awaitable[Any],
        request_id: RequestId,
        revision: Revision,
        session: Session,
        channel: Channel | None,
    ) -> asyncio.Task[bytes]:
        # Eager: a handler that never waits is answered before this returns (core/eager.py).
        task = start_task(
            asyncio.get_running_loop(),
            self._complete(tool, running, request_id, revision, session, channel),
        )
        if task.done():
            return task
        session.track(request_id, task)
        close = getattr(running, "close", None)
        if close is not None:  # a coroutine cancelled before it ran: close it quietly
            task.add_done_callback(lambda _: close())
        return task

    async def _complete(
        self,
        tool: DispatchTool,
        running: Awaitable[Any],
        request_id: RequestId,
        revision: Revision,
        session: Session,
        channel: Channel | None,
    ) -> bytes:
        task = asyncio.current_task()
        try:
            value = await running
            if _awaitable(value):  # a sync handler (in a worker) returned a coroutine
                value = await value
        except asyncio.CancelledError as exc:
            if task is None or task.cancelling():
                raise  # cancelled by the client (or at shutdown): no response is sent
            value = tool.failure(exc)  # the handler's own CancelledError is a failure
        except Interrupt as stop:  # 2026-07-28: questions for the client, or a bad state
            return await stop.reply(request_id, channel, self._stamp)
        except ClientCapabilityMissing as missing:
            if revision.missing_capability_is_error:
                return jsonrpc.error(request_id, missing.rpc_error())
            value = tool.failure(missing)
        except RpcError as failure:  # a handler's ProtocolError
            return jsonrpc.error(request_id, failure)
        except Exception as exc:
            value = tool.failure(exc)
        finally:
            session.forget(request_id, task)
        return tool.response(value, request_id, revision, self._stamp)


async def _raised(exc: BaseException) -> Any:
    raise exc


def _awaitable(value: Any) -> bool:
    return type(value) not in _PLAIN and hasattr(value, "__await__")
