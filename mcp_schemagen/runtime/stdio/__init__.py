"""Serve over stdio: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.

One asyncio loop. Messages are handled in the order they arrive, straight from the
read callback; only async handlers become tasks, so a slow tool never holds up the
next message and ``notifications/cancelled`` can cancel it. Replies produced while one
chunk of input is processed leave in one write. Anything the process prints to
standard output (a stray ``print`` in a handler, or at the top of handlers.py) goes to
stderr instead of corrupting the stream: ``claim_stdout`` runs before user code is
imported.

Backpressure: while the replies waiting to be written exceed ``WRITE_BUFFER_HIGH`` (a
client that stops reading), no further message is handled and stdin is not read. Up to
``max_inflight`` requests run at once (``--max-concurrent-requests`` or
``MCP_MAX_CONCURRENT_REQUESTS``; the default suits I/O-bound async handlers, which cost
little while they wait). Past that, requests queue (raw bytes, up to
``MAX_QUEUED_BYTES``; then stdin is not read), while what needs no slot is handled at
once whatever is queued: ``ping``, ``notifications/cancelled`` (which also drops a
queued request), and the client's answers to the server's own requests, on which
running handlers may wait. New requests start in rounds of ``ADMIT_ROUND``, the next
round after the loop has run those started (or one finished): a burst of calls whose
replies are large congests the writer before more of them start, so memory stays
bounded by the queued bytes, the write buffer and a round of replies.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import traceback
from collections import deque
from typing import Any

import orjson

from ..jsonrpc import RpcError
from ..protocol import INVALID_REQUEST
from ..server import Server
from ..session import Session
from ..workers import jobs_waiting
from .writer import SHUTDOWN_GRACE_SECONDS, Writer, pollable

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_INFLIGHT = 4096  # default bound on requests running at once
MAX_INFLIGHT_VARIABLE = "MCP_MAX_CONCURRENT_REQUESTS"
MAX_QUEUED_BYTES = 8 * 1024 * 1024  # requests read but waiting for a slot: stop reading
ADMIT_ROUND = 16  # requests started before the loop runs them (see the module docstring)
ADMIT_PAUSE_SECONDS = 0.005

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError

_wire: int | None = None  # the protocol stream's descriptor, once claimed


def run_stdio(server: Server, *, max_inflight: int | None = None) -> None:
    """Serve ``server`` on this process's stdin and stdout until stdin closes."""
    wire = claim_stdout()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(server, stdin_fd=0, stdout_fd=wire, max_inflight=max_inflight))


def max_inflight_from_environment() -> int:
    """``MCP_MAX_CONCURRENT_REQUESTS`` (a positive integer), else ``MAX_INFLIGHT``."""
    raw = os.environ.get(MAX_INFLIGHT_VARIABLE, "").strip()
    if not raw:
        return MAX_INFLIGHT
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{MAX_INFLIGHT_VARIABLE}={raw!r}: must be a positive integer")
    return int(raw)


def claim_stdout() -> int:
    """Keep standard output for the protocol alone: it moves to a private descriptor, and
    fd 1 (``print``, C libraries) then points at stderr. Call it before importing user
    code; calling it again returns the same descriptor."""
    global _wire
    if _wire is None:
        _wire = _claim_stdout()
    return _wire


def _claim_stdout() -> int:
    sys.stdout.flush()
    try:
        wire = os.dup(1)
        os.dup2(2, 1)
    except OSError:
        return 1
    return wire


async def serve(
    server: Server, *, stdin_fd: int = 0, stdout_fd: int = 1, max_inflight: int | None = None
) -> None:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    writer = Writer(done)
    await writer.open(loop, stdout_fd)
    limit = max_inflight if max_inflight is not None else max_inflight_from_environment()
    session = server.session(writer.write)
    reader = _Reader(server, session, writer, done, max_inflight=limit)
    server.subscriptions.start(None)  # change notifications: this process is the only one
    unfollow = server.subscriptions.follow(session)
    pump: asyncio.Task[None] | None = None
    restore = [fd for fd in (stdin_fd, stdout_fd) if _is_blocking(fd)]
    try:
        if pollable(stdin_fd):
            stdin = os.fdopen(stdin_fd, "rb", buffering=0, closefd=False)
            transport, _ = await loop.connect_read_pipe(lambda: reader, stdin)
            reader.reading = transport
        else:  # a file, a terminal, /dev/null: read it in a thread
            pump = asyncio.ensure_future(_pump(loop, stdin_fd, reader))
        await done
        unfollow()
        await server.subscriptions.stop()  # listen streams end now, with their result
        await reader.finish(SHUTDOWN_GRACE_SECONDS)
        await writer.aclose()
    finally:
        if pump is not None:
            pump.cancel()
        for fd in restore:
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)


def _is_blocking(fd: int) -> bool:
    try:
        return os.get_blocking(fd)
    except OSError:
        return False


async def _pump(loop: asyncio.AbstractEventLoop, fd: int, reader: _Reader) -> None:
    while True:
        await reader.flowing.wait()
        chunk = await loop.run_in_executor(None, os.read, fd, 1 << 16)
        if not chunk:
            break
        reader.data_received(chunk)
    reader.eof_received()


class _Reader(asyncio.Protocol):
    """Splits stdin into lines and hands each to the server, while the client keeps up."""

    def __init__(
        self,
        server: Server,
        session: Session,
        writer: Writer,
        done: asyncio.Future[None],
        *,
        max_inflight: int = MAX_INFLIGHT,
    ) -> None:
        self._server = server
        self._session = session
        self._writer = writer
        self._done = done
        self._limit = max_inflight
        self._partial: list[bytes] = []
        self._partial_size = 0
        self._discarding = False
        self._tasks: set[asyncio.Future[bytes | None]] = set()
        self._backlog = b""  # input read but held back; it starts at a line boundary
        self._queue: deque[tuple[Any, bytes]] = deque()  # (request id, line) for a slot
        self._queued_bytes = 0
        self._round = 0  # requests started in this admission round
        self._round_timer: asyncio.TimerHandle | None = None
        self._eof = False
        self.reading: asyncio.ReadTransport | None = None
        self.flowing = asyncio.Event()  # clear while held back (for a stdin read in a thread)
        self.flowing.set()
        writer.on_drained = self._flow

    def _held_back(self) -> bool:
        """Whether input must wait unread: replies pile up unread, or the queue is full."""
        return self._writer.congested() or self._queued_bytes >= MAX_QUEUED_BYTES

    def _can_start(self) -> bool:
        return (
            len(self._tasks) < self._limit
            and self._round < ADMIT_ROUND
            and not self._writer.congested()
            and jobs_waiting() == 0
        )

    def _accept(self, line: bytes) -> None:
        """Handle ``line`` now, or queue it when it is a request without a free slot."""
        if not self._queue and self._can_start():
            self._line(line)
            return
        try:
            message = _loads(line)
        except _JSONDecodeError:
            self._line(line)  # answered at once, with a parse error
            return
        if type(message) is dict:
            method = message.get("method")
            if "id" in message and type(method) is str and method != "ping":
                self._enqueue(message.get("id"), line)
                return
            if method == "notifications/cancelled":
                params = message.get("params")
                if type(params) is dict:
                    self._unqueue(params.get("requestId"))
            self._line(line)  # ping, notifications, answers to the server's requests
        elif type(message) is list and any(
            type(m) is dict and "id" in m and "method" in m for m in message
        ):
            self._enqueue(None, line)
        else:
            self._line(line)

    def _enqueue(self, request_id: Any, line: bytes) -> None:
        self._queue.append((request_id, line))
        self._queued_bytes += len(line)

    def _unqueue(self, request_id: Any) -> None:
        """A cancelled request that has not started: it never will (and gets no reply)."""
        if type(request_id) not in (str, int):
            return
        for index, (queued_id, line) in enumerate(self._queue):
            if queued_id == request_id and type(queued_id) is type(request_id):
                del self._queue[index]
                self._queued_bytes -= len(line)
                return

    def _admit(self) -> None:
        """Start queued requests while slots (and this round) allow."""
        writer = self._writer
        # Corked replies (answered at once, not tasks) end a pass when they pass
        # WRITE_BUFFER_HIGH; once written, the transport may hold less than that and never
        # pause, so no resume_writing would come to start the rest: the next pass does.
        while self._queue and self._can_start():
            writer.cork()
            try:
                while self._queue and self._can_start():
                    _, line = self._queue.popleft()
                    self._queued_bytes -= len(line)
                    self._line(line)
            finally:
                writer.uncork()

    def _next_round(self) -> None:
        self._round_timer = None
        self._round = 0
        self._admit()
        self._flow()

    def data_received(self, data: bytes) -> None:
        if self._backlog:
            data, self._backlog = self._backlog + data, b""
        self._handle(data)
        self._flow()

    def _handle(self, data: bytes) -> None:
        """Handle the complete lines of ``data`` until the client must be held back; what
        is left waits in the backlog."""
        writer = self._writer
        writer.cork()
        try:
            start = 0
            while (end := data.find(b"\n", start)) >= 0:
                if self._partial:
                    line = b"".join(self._partial) + data[start:end]
                else:
                    line = data[start:end]
                if not self._discarding and self._held_back():
                    self._backlog = data[start:]  # the partial stays: the line resumes there
                    return
                self._partial.clear()
                self._partial_size = 0
                start = end + 1
                if self._discarding:
                    self._discarding = False
                    failure = RpcError(INVALID_REQUEST, "Message too large")
                    writer.write(self._server.error_reply(None, failure, self._session))
                else:
                    self._accept(line)
            if start < len(data) and not self._discarding:
                self._partial.append(data[start:])
                self._partial_size += len(data) - start
                if self._partial_size > MAX_MESSAGE_BYTES:
                    self._partial.clear()
                    self._partial_size = 0
                    self._discarding = True
        finally:
            writer.uncork()

    def _flow(self) -> None:
        """Handle held-back input and read more while the client keeps up; else wait (a
        reply written or a request finished calls this again)."""
        self._admit()
        while self._backlog and not self._held_back():
            data, self._backlog = self._backlog, b""
            self._handle(data)
        if self._backlog or self._held_back():
            self.flowing.clear()
            if self.reading is not None and self.reading.is_reading():
                self.reading.pause_reading()
            return
        self.flowing.set()
        if self._eof:
            if not self._queue:
                self._end()
            return
        reading = self.reading
        if reading is not None and not reading.is_closing() and not reading.is_reading():
            reading.resume_reading()

    def _line(self, line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            return
        try:
            reply = self._server.receive(line, self._session)
        except Exception:  # receive answers bad input itself; this is a bug, not a reason to stop
            traceback.print_exc(file=sys.stderr)
            return
        if reply is None:
            return
        if isinstance(reply, bytes):
            self._writer.write(reply)
            return
        task = asyncio.ensure_future(reply)
        if task.done():  # an async handler that never waited (core/eager.py): answer now
            self._finished(task, flow=False)
            return
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        self._round += 1
        if self._round_timer is None:
            loop = asyncio.get_running_loop()
            self._round_timer = loop.call_later(ADMIT_PAUSE_SECONDS, self._next_round)

    def _finished(self, task: asyncio.Future[bytes | None], flow: bool = True) -> None:
        if not task.cancelled():  # a cancelled request gets no response
            failure = task.exception()
            if failure is not None:
                traceback.print_exception(failure, file=sys.stderr)
            elif (reply := task.result()) is not None:
                self._writer.write(reply)
        if flow:  # a task's done callback, not a call answered as it was read
            self._tasks.discard(task)
            self._round = 0  # the loop ran what was started: the next round may start
            self._flow()

    def eof_received(self) -> bool | None:
        self._eof = True
        if not self._backlog and not self._queue:
            self._end()
        return None  # else _flow ends it once the held-back input is handled

    def _end(self) -> None:
        if self._done.done():
            return
        if self._round_timer is not None:
            self._round_timer.cancel()
            self._round_timer = None
        if self._partial and not self._discarding:
            line = b"".join(self._partial)
            self._partial.clear()
            self._writer.cork()
            try:
                self._line(line)  # a last message without its newline
            finally:
                self._writer.uncork()
        self._session.outbound.close()  # no answer can come any more
        self._done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is None and (self._backlog or self._queue):
            self._eof = True  # _flow ends it once the held-back input is handled
        elif not self._done.done():
            self._done.set_result(None)

    async def finish(self, grace: float) -> None:
        """Let requests still running answer (up to ``grace`` seconds), then cancel them."""
        if self._tasks:
            _, late = await asyncio.wait(set(self._tasks), timeout=grace)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
