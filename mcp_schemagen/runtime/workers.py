"""Sync handlers run in worker threads, so that one that blocks (a ``time.sleep``, a slow
query) holds up no other request, ping included. The SDK and FastMCP do the same.

A handler marked ``@nonblocking`` (quick, no I/O) skips the hop and runs on the event loop:
the fast path (bench/bench_server.py shows both, and so what the hop costs).

The threads are daemons, started as needed up to ``MAX_WORKERS``: a handler stuck forever
cannot keep the process from exiting when the client goes. While a handler runs in a
worker, what it sends (log, progress) is handed to the event loop's thread, since the
transports are not thread-safe (``from_any_thread``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

Handler = TypeVar("Handler", bound=Callable[..., Any])
MAX_WORKERS = min(32, (os.cpu_count() or 1) + 4)  # what concurrent.futures chooses
NONBLOCKING_MARK = "__mcp_nonblocking__"


def nonblocking(handler: Handler) -> Handler:
    """Mark a sync handler that never blocks (no I/O, no sleep, quick): it then runs on the
    event loop itself, with no thread hop. A marked handler that does block stalls every
    other request while it runs."""
    setattr(handler, NONBLOCKING_MARK, True)
    return handler


def runs_in_worker(handler: Callable[..., Any], is_async: bool) -> bool:
    return not is_async and not getattr(handler, NONBLOCKING_MARK, False)


def run_in_worker(handler: Callable[..., Any], kwargs: Mapping[str, Any]) -> asyncio.Future[Any]:
    """Call ``handler(**kwargs)`` in a worker thread, in a copy of the current context (so
    ``get_context()`` works there); the future settles on the running loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()
    _POOL.submit(lambda: _work(loop, future, context, handler, kwargs))
    return future


def jobs_waiting() -> int:
    """Sync calls submitted but waiting for a free thread: a transport admits no more
    requests meanwhile, since each would only wait here, holding its arguments."""
    return _POOL.waiting


def from_any_thread(send: Callable[[bytes], None]) -> Callable[[bytes], None]:
    """``send`` that may be called from a worker: there it is passed to the loop's thread."""

    def deliver(message: bytes) -> None:
        loop: asyncio.AbstractEventLoop | None = getattr(_worker, "loop", None)
        if loop is None:
            send(message)
        else:
            _call_soon(loop, send, message)

    return deliver


_worker = threading.local()  # .loop: the loop a worker's current job came from


def _work(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    context: contextvars.Context,
    handler: Callable[..., Any],
    kwargs: Mapping[str, Any],
) -> None:
    if future.cancelled():  # cancelled while it waited for a thread: do not start it
        return
    _worker.loop = loop
    try:
        value = context.run(handler, **kwargs)
    except BaseException as exc:  # delivered to the awaiting task, which decides
        _call_soon(loop, _settle, future, None, exc)
    else:
        _call_soon(loop, _settle, future, value, None)
    finally:
        _worker.loop = None


def _settle(future: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    if future.cancelled():
        return
    if exc is None:
        future.set_result(value)
    else:
        future.set_exception(exc)


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    # RuntimeError: the loop closed (the server stopped) while the handler ran; nobody waits.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)


class _Pool:
    """Daemon threads taking jobs from one queue, started when none is idle."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self.waiting = 0  # jobs not yet taken by a thread

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            start = self._idle == 0 and self._threads < self._size
            if start:
                self._threads += 1
                self._idle += 1  # counted idle until it takes its first job
            self.waiting += 1
        if start:
            name = f"mcp-handler-{self._threads}"
            threading.Thread(target=self._serve, name=name, daemon=True).start()
        self._jobs.put(job)

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            with self._lock:
                self._idle -= 1
                self.waiting -= 1
            try:
                job()
            finally:
                with self._lock:
                    self._idle += 1


_POOL = _Pool(MAX_WORKERS)
