"""One handler call's lifecycle, the same for a tool, a prompt and a resource reader: the
context entered around it (so ``get_context()`` works and the handler may ask the client),
the handler run on the loop, in a worker or as a task, its outcome or failure shaped by
the job, cancellation honoured.

A call that finishes at once is answered at once (bytes); one still running (an async
handler, a sync one in a worker thread) becomes a task the session tracks, so
``notifications/cancelled`` can cancel it, and its reply is that task.

What differs between kinds is the ``Job``: how a failure is reported (a tool's is an
``isError`` result, a prompt's or a resource's a JSON-RPC error, raised as ``RpcError``
from ``failure``) and how a return value becomes the result.
"""

from __future__ import annotations

import asyncio
import sys
import time
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from .. import jsonrpc
from ..asking.errors import ClientCapabilityMissing
from ..asking.interaction import Channel, Interrupt
from ..context import Context, enter, leave
from ..jsonrpc import Reply, RequestId, RpcError
from ..protocol import INTERNAL_ERROR, Revision
from ..session.request import RequestContext
from ..shorten import shorten
from ..workers import Placement, run_in_worker
from .eager import start_task

_PLAIN = frozenset({str, bytes, dict, list, tuple, type(None)})  # never awaitable


class Job(Protocol):
    """What the lifecycle needs of the thing being called."""

    @property
    def handler(self) -> Callable[..., Any]: ...

    @property
    def is_async(self) -> bool: ...

    @property
    def placement(self) -> Placement | None:
        """Where a sync handler that may block runs now (None: async, or marked
        ``nonblocking``: always on the loop)."""

    def failure(self, exc: BaseException) -> Any:
        """The value to answer with for a handler that raised ``exc``; raise ``RpcError``
        to fail the request with that error instead."""

    def response(
        self, value: Any, request_id: RequestId, revision: Revision, stamp: Mapping[str, Any]
    ) -> bytes:
        """The JSON-RPC response for a return value; never raises."""


def run_call(
    job: Job,
    kwargs: Mapping[str, Any],
    name: str,
    request: RequestContext,
    channel: Channel | None,
    stamp: Mapping[str, Any],
) -> Reply:
    """Call ``job.handler(**kwargs)`` for ``request``; ``name`` is what the context calls
    it (the tool, prompt or resource), ``channel`` the 2026-07-28 round's channel to the
    client (None: the session's), ``stamp`` the 2026-07-28 result ``_meta``."""
    request_id, revision = request.id, request.revision
    context = Context(request, name, channel)
    # The context is entered around the call, and a task made here copies it, so an
    # async handler sees it for its whole run.
    entered = enter(context)
    try:
        placement = job.placement
        if placement is not None:  # a sync handler may block: not on the event loop...
            if not placement.inline:
                running = run_in_worker(job.handler, kwargs, placement)
                # The thread runs on after a cancel: the handler asks ctx.cancelled.
                context.watch_cancellation(running.cancelled)
                return _start(job, running, request, channel, stamp)
            # ...unless its calls in workers were all quick (workers.Placement). It holds
            # the loop while it runs: nothing can cancel it meanwhile.
            context.watch_cancellation(_never)
            started = time.perf_counter()
            try:
                value = job.handler(**kwargs)
            except (Interrupt, ClientCapabilityMissing, asyncio.CancelledError) as stop:
                # What a worker's task makes of these (questions, a failure), it does here.
                return _start(job, _raised(stop), request, channel, stamp)
            finally:
                placement.loop_call_took(time.perf_counter() - started)
            if _awaitable(value):
                return _start(job, value, request, channel, stamp)
            return job.response(value, request_id, revision, stamp)
        value = job.handler(**kwargs)
        if job.is_async or _awaitable(value):
            return _start(job, value, request, channel, stamp)
    except RpcError:
        raise  # a handler's ProtocolError: the request fails with that JSON-RPC error
    except Exception as exc:
        value = job.failure(exc)  # may raise RpcError: the request fails with it
    finally:
        leave(entered)
    return job.response(value, request_id, revision, stamp)


def _start(
    job: Job,
    running: Awaitable[Any],
    request: RequestContext,
    channel: Channel | None,
    stamp: Mapping[str, Any],
) -> asyncio.Task[bytes] | bytes:
    # Eager: a handler that never waits is answered before this returns (core/eager.py),
    # and a task already done is not tracked (its own finally has forgotten it). Its
    # reply is returned as a sync handler's is: the transport writes it at once, with no
    # future to look into and no done callback (an admission slot's) for the loop to run.
    loop = asyncio.get_running_loop()
    task = start_task(loop, _complete(job, running, request, channel, stamp, loop))
    if task.done():
        if not task.cancelled() and task.exception() is None:
            return task.result()
        return task
    request.session.track(request.id, task)
    close = getattr(running, "close", None)
    if close is not None:  # a coroutine cancelled before it ran: close it quietly
        task.add_done_callback(lambda _: close())
    return task


async def _complete(
    job: Job,
    running: Awaitable[Any],
    request: RequestContext,
    channel: Channel | None,
    stamp: Mapping[str, Any],
    loop: asyncio.AbstractEventLoop,
) -> bytes:
    request_id, revision = request.id, request.revision
    task = asyncio.current_task(loop)  # given the loop: no second get_running_loop (getpid)
    try:
        try:
            value = await running
            if _awaitable(value):  # a sync handler (in a worker) returned a coroutine
                value = await value
        except asyncio.CancelledError as exc:
            if task is None or task.cancelling():
                raise  # cancelled by the client (or at shutdown): no response is sent
            value = job.failure(exc)  # the handler's own CancelledError is a failure
        except Interrupt as stop:  # 2026-07-28: questions for the client, or a bad state
            return await stop.reply(request_id, channel, stamp)
        except ClientCapabilityMissing as missing:
            if revision.missing_capability_is_error:
                return jsonrpc.error(request_id, missing.rpc_error())
            value = job.failure(missing)
        except RpcError as failure:  # a handler's ProtocolError
            return jsonrpc.error(request_id, failure)
        except Exception as exc:
            value = job.failure(exc)
    except RpcError as failure:  # the job reports its handler's failure as an error
        return jsonrpc.error(request_id, failure)
    finally:
        request.session.forget(request_id, task)
    return job.response(value, request_id, revision, stamp)


def _never() -> bool:
    return False


async def _raised(exc: BaseException) -> Any:
    raise exc


def _awaitable(value: Any) -> bool:
    return type(value) not in _PLAIN and hasattr(value, "__await__")


def internal_error(message: str, data: Any = None) -> RpcError:
    """The -32603 error of a run-time failure the server caused (a handler's result that
    cannot be sent, a broken outputSchema), logged on stderr here, once, with every detail:
    a client may show only the message, never ``data``, and under a host stderr is all a
    server's author sees. ``message`` names the tool, prompt or reader."""
    errors = data.get("errors") if isinstance(data, dict) else None
    detail = f": {'; '.join(map(str, errors))}" if isinstance(errors, list) and errors else ""
    print(message + detail, file=sys.stderr, flush=True)
    return RpcError(INTERNAL_ERROR, shorten(message), data)


def handler_error(
    logged_as: str, subject: str, exc: BaseException, *, unimplemented: str | None = None
) -> RpcError:
    """The -32603 error of a prompt, reader or completion handler that raised ``exc``,
    its traceback on stderr under ``logged_as``; ``subject`` names the job in the message
    ("Prompt greet", "Completion of prompt 'greet' argument 'city'"), ``unimplemented``
    the handler when it raised NotImplementedError (default: ``subject``)."""
    print(f"{logged_as} raised:", file=sys.stderr)
    traceback.print_exception(exc, file=sys.stderr)
    try:
        text = str(exc) or type(exc).__name__
    except Exception:  # a hostile __str__ still gets its error answered
        text = type(exc).__name__
    if isinstance(exc, NotImplementedError):
        named = unimplemented or subject
        return RpcError(INTERNAL_ERROR, shorten(f"{named} is not implemented yet ({text})"))
    return RpcError(INTERNAL_ERROR, shorten(f"{subject} failed: {text}"))
