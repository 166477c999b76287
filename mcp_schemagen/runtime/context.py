"""What a handler can reach while it runs: logging, progress, the request's facts.

    from .api import get_context

    async def long_job(*, n: int) -> str:
        ctx = get_context()
        ctx.log("info", f"starting {n} steps")
        for i in range(n):
            ...
            ctx.report_progress(i + 1, total=n)
        return "done"

Both methods are plain calls (no ``await``), so sync and async handlers use them alike.
An async handler can also ask the client: ``await ctx.elicit(...)``, ``ctx.sample(...)``,
``ctx.list_roots()``, ``ctx.ask({...})`` (see asking/interaction.py).
Cancellation (``notifications/cancelled``, a task's ``tasks/cancel``) cancels an async
handler's task: it sees ``asyncio.CancelledError`` at its next ``await``; no response is
sent for that request. A thread cannot be stopped from outside, so a sync handler (run in
a worker thread) stops cooperatively: ``ctx.cancelled`` says whether its call was
cancelled, and ``ctx.check_cancelled()`` raises ``asyncio.CancelledError`` if so; what it
returns after a cancel is never sent nor stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from .asking.handler_methods import Asking
from .asking.interaction import Channel, SessionChannel
from .jsonrpc import RequestId, notification
from .protocol import LOG_RANK, Revision
from .session import Session
from .session.request import RequestContext

if TYPE_CHECKING:
    from .auth.principal import Principal

_current: ContextVar[Context] = ContextVar("mcp_codegen_request_context")


class Context(Asking):
    """The tool call in progress."""

    __slots__ = (
        "_asking",
        "_cancelled",
        "_log_rank",
        "_principal",
        "_progress_token",
        "_session",
        "request_id",
        "revision",
        "tool",
    )

    def __init__(self, request: RequestContext, tool: str, channel: Channel | None = None) -> None:
        """``tool`` is what the handler serves (a tool's, prompt's name, a resource's URI),
        ``channel`` the 2026-07-28 round's channel to the client (None: the session's)."""
        self._session: Session = request.session
        self._asking = channel  # None: the session's channel, made on first use
        self._progress_token = request.progress_token
        # None: follow the session's logging/setLevel; -1: send no log messages.
        self._log_rank = request.log_rank
        self._principal = request.principal
        self.revision: Revision = request.revision
        self.request_id: RequestId = request.id
        self.tool = tool
        # Whether the call was cancelled, for a handler in a worker thread (the lifecycle
        # sets it to the worker's future's `cancelled`); None: ask the running asyncio task.
        self._cancelled: Callable[[], bool] | None = None

    def watch_cancellation(self, cancelled: Callable[[], bool]) -> None:
        self._cancelled = cancelled

    @property
    def cancelled(self) -> bool:
        """True once the call was cancelled (``notifications/cancelled``, ``tasks/cancel``
        at any worker): a sync handler's cue to stop (see ``check_cancelled``)."""
        if self._cancelled is not None:
            return self._cancelled()
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no loop in this thread: nothing here can be cancelled
            return False
        return task is not None and task.cancelling() > 0

    def check_cancelled(self) -> None:
        """Raise ``asyncio.CancelledError`` if the call was cancelled: a sync handler in a
        long loop calls it at each step, so a cancel stops it there (a thread cannot be
        stopped from outside); nothing it would have returned is sent or stored."""
        if self.cancelled:
            raise asyncio.CancelledError(f"{self.tool} was cancelled")

    @property
    def protocol_version(self) -> str:
        return self.revision.name

    @property
    def principal(self) -> Principal | None:
        """Who is calling: the access token's subject, client, scopes and claims (over
        HTTP with authorization; None otherwise). Never the token itself."""
        return self._principal

    @property
    def progress_token(self) -> RequestId | None:
        """The request's ``_meta.progressToken``; None when the client wants no progress."""
        return self._progress_token

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """What the client declared it can do (initialize's capabilities, or this
        request's ``_meta`` clientCapabilities in 2026-07-28)."""
        return self._channel().capabilities

    def _channel(self) -> Channel:
        if self._asking is None:
            self._asking = SessionChannel(self._session)
        return self._asking

    async def start_task(self) -> bool:
        """Go on as a durable task from here: for a tool whose file says
        ``"x-mcp-codegen-task": {"start": "handler"}``, called by a client that declared
        the tasks extension, the tools/call is answered now with the task, and questions
        asked after this become the task's ``input_required`` state (those before it were
        answered in the call's own rounds). False, and nothing changes, anywhere else."""
        begin = getattr(self._asking, "begin_task", None)
        return False if begin is None else bool(await begin())

    def close_stream(self) -> None:
        """Over HTTP (2025-11-25), end this call's SSE stream now; the client reconnects
        with ``Last-Event-ID`` and receives what follows, from any worker. Elsewhere a
        no-op."""
        self._session.close_stream()

    def log(self, level: str, data: Any, *, logger: str | None = None) -> None:
        """Send ``notifications/message`` when the client asked for ``level`` or lower:
        by logging/setLevel (up to 2025-11-25) or by this request's ``_meta`` logLevel
        (2026-07-28, where a request without it gets no log messages)."""
        rank = LOG_RANK.get(level)
        if rank is None:
            raise ValueError(f"unknown log level {level!r}; one of {', '.join(LOG_RANK)}")
        threshold = self._session.log_rank if self._log_rank is None else self._log_rank
        if threshold < 0 or rank < threshold:
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        self._session.send(notification("notifications/message", params))

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` when the request carried a progressToken."""
        if self._progress_token is None:
            return
        params = self.revision.progress_params(self._progress_token, progress, total, message)
        self._session.send(notification("notifications/progress", params))


def get_context() -> Context:
    """The context of the tool call this code runs in."""
    try:
        return _current.get()
    except LookupError:
        raise RuntimeError("get_context() is only available while a tool handler runs") from None


def enter(context: Context) -> Any:
    return _current.set(context)


def leave(token: Any) -> None:
    _current.reset(token)
