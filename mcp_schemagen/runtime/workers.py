"""Sync handlers run in worker threads, so that one that blocks (a ``time.sleep``, a slow
query) holds up no other request, ping included. The SDK and FastMCP do the same.

A handler marked ``@nonblocking`` (quick, no I/O) skips the hop and runs on the event loop:
the fast path (bench/bench_server.py shows both, and so what the hop costs). An unmarked one
earns the fast path by its record (``Placement``): after ``QUICK_STREAK`` calls in a row
that each returned within ``QUICK_SECONDS`` in a worker, it runs on the loop; one call there
slower than ``SLOW_SECONDS`` sends it back to the workers, for good after ``MAX_DEMOTIONS``,
unless the loop's thread spent that time waiting for a CPU (a busy machine, not a blocking
handler: ``runqueue_wait``).
So the hop (~50 µs of CPU a call) is paid by handlers that block, not by all of them, and a
handler that turns slow stalls the loop once, not again. ``@blocking`` keeps one in the
workers whatever its record (a quick handler that may, rarely, block for long).

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
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

Handler = TypeVar("Handler", bound=Callable[..., Any])
MAX_WORKERS = min(32, (os.cpu_count() or 1) + 4)  # what concurrent.futures chooses
NONBLOCKING_MARK = "__mcp_nonblocking__"
BLOCKING_MARK = "__mcp_blocking__"
QUICK_SECONDS = 50e-6  # a worker call this quick (wall time) counts toward the loop
QUICK_STREAK = 16  # quick calls in a row that move a handler onto the loop
SLOW_SECONDS = 1e-3  # a call on the loop slower than this sends the handler back
MAX_DEMOTIONS = 3  # sent back this often, a handler stays in the workers


def nonblocking(handler: Handler) -> Handler:
    """Mark a sync handler that never blocks (no I/O, no sleep, quick): it then runs on the
    event loop itself, with no thread hop. A marked handler that does block stalls every
    other request while it runs."""
    setattr(handler, NONBLOCKING_MARK, True)
    return handler


def blocking(handler: Handler) -> Handler:
    """Mark a sync handler that must always run in a worker thread, even when its calls so
    far were quick (one that usually answers from a cache but may wait on I/O, or one that
    must not run on the loop's thread, since it calls ``asyncio.run``)."""
    setattr(handler, BLOCKING_MARK, True)
    return handler


def runs_in_worker(handler: Callable[..., Any], is_async: bool) -> bool:
    return not is_async and not getattr(handler, NONBLOCKING_MARK, False)


class Placement:
    """Where a sync handler runs now: ``inline`` (on the loop) or in a worker. Updated from
    worker threads without a lock: a lost update under a race only delays a move."""

    __slots__ = ("_demotions", "_needed", "_streak", "_waited", "inline")

    def __init__(self, handler: Callable[..., Any]) -> None:
        self.inline = False
        self._streak = 0
        self._demotions = 0
        # The loop thread's time waiting for a CPU (runqueue_wait) when last looked at:
        # taken on its first call on the loop, then at each slow one.
        self._waited: float | None = None
        # 0: never inline (marked @blocking).
        self._needed = 0 if getattr(handler, BLOCKING_MARK, False) else QUICK_STREAK

    def worker_call_took(self, seconds: float) -> None:
        if seconds >= QUICK_SECONDS:
            self._streak = 0
        elif self._needed:
            self._streak += 1
            if self._streak >= self._needed:
                self.inline = True

    def loop_call_took(self, seconds: float) -> None:
        if seconds <= SLOW_SECONDS:
            if self._waited is None:
                self._waited = runqueue_wait()
            return
        # On a busy machine a quick call is slow when the thread, ready to run, waited for
        # a CPU: not the handler's doing, so it stays. Blocking (a sleep, I/O) is not
        # waiting for a CPU, and sends it back.
        waited, before = runqueue_wait(), self._waited
        self._waited = waited
        if waited is not None and before is not None and waited - before >= seconds - SLOW_SECONDS:
            return
        self.inline = False
        self._streak = 0
        self._waited = None  # looked at anew once it is back on the loop
        self._demotions += 1
        # Each return to the loop must be earned by a longer record, so a handler that
        # is slow now and then stalls the loop ever more rarely, then never.
        self._needed = 0 if self._demotions >= MAX_DEMOTIONS else QUICK_STREAK << self._demotions


def runqueue_wait() -> float | None:
    """Seconds this thread has spent ready to run but waiting for a CPU (Linux schedstat;
    None elsewhere). Read only around slow calls: it costs a file read."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def run_in_worker(
    handler: Callable[..., Any], kwargs: Mapping[str, Any], placement: Placement | None = None
) -> asyncio.Future[Any]:
    """Call ``handler(**kwargs)`` in a worker thread, in a copy of the current context (so
    ``get_context()`` works there); the future settles on the running loop. The call's
    time is told to ``placement``."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()
    _POOL.submit(lambda: _work(loop, future, context, handler, kwargs, placement))
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
    placement: Placement | None,
) -> None:
    if future.cancelled():  # cancelled while it waited for a thread: do not start it
        return
    _worker.loop = loop
    started = time.perf_counter()
    try:
        value: Any = context.run(handler, **kwargs)
        failure: BaseException | None = None
    except BaseException as exc:  # delivered to the awaiting task, which decides
        value, failure = None, exc
    took = time.perf_counter() - started
    _worker.loop = None
    if placement is not None:  # before the reply goes, so the client's next call sees it
        placement.worker_call_took(took)
    _call_soon(loop, _settle, future, value, failure)


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
