"""The stdio transport's writing half: newline-terminated messages to the client on
stdout, held while one input chunk is handled so replies to a burst leave in one write,
and the flow control that tells the reader to stop handling while the client does not
read (``WRITE_BUFFER_HIGH``, see the package's docstring)."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable

SHUTDOWN_GRACE_SECONDS = 10.0
WRITE_BUFFER_HIGH = 1024 * 1024  # bytes of replies waiting for the client: stop handling
WRITE_BUFFER_LOW = 256 * 1024  # ... until they are down to this


def pollable(fd: int) -> bool:
    """Pipes and sockets get asyncio transports; anything else is read in a thread."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class Writer(asyncio.Protocol):
    """Newline-terminated messages to the client; held while one input chunk is handled
    (``cork``/``uncork``) so replies to a burst of requests leave in one write."""

    def __init__(self, done: asyncio.Future[None]) -> None:
        self._done = done
        self._closed: asyncio.Future[None] = done.get_loop().create_future()
        self._transport: asyncio.WriteTransport | None = None
        self._fd = -1
        self._held: list[bytes] = []
        self._held_size = 0
        self._corked = False
        self._paused = False  # the transport holds more than WRITE_BUFFER_HIGH
        self.on_drained: Callable[[], None] | None = None

    async def open(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        if pollable(fd):
            pipe = os.fdopen(fd, "wb", buffering=0, closefd=False)
            self._transport, _ = await loop.connect_write_pipe(lambda: self, pipe)
            self._transport.set_write_buffer_limits(high=WRITE_BUFFER_HIGH, low=WRITE_BUFFER_LOW)
        else:  # a file, a terminal, /dev/null: plain blocking writes
            self._fd = fd

    def write(self, message: bytes) -> None:
        if self._corked:
            self._held.append(message)
            self._held_size += len(message)
        else:
            self._emit(message + b"\n")

    def cork(self) -> None:
        self._corked = True

    def uncork(self) -> None:
        self._corked = False
        if self._held:
            held, self._held = self._held, []
            self._held_size = 0
            held.append(b"")
            self._emit(b"\n".join(held))

    def _emit(self, data: bytes) -> None:
        if self._transport is not None:
            if not self._transport.is_closing():
                self._transport.write(data)
            return
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError:
            self._stop()

    async def aclose(self) -> None:
        """Flush what is buffered, then close (the client may have gone already)."""
        self.uncork()
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()
            await asyncio.wait([self._closed], timeout=SHUTDOWN_GRACE_SECONDS)

    def congested(self) -> bool:
        """Replies are piling up faster than the client reads them."""
        return self._paused or self._held_size >= WRITE_BUFFER_HIGH

    # asyncio.Protocol: flow control and the client going away
    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self.on_drained is not None:  # not inside the transport's own callback
            self._done.get_loop().call_soon(self.on_drained)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)
        self._stop()

    def _stop(self) -> None:
        if not self._done.done():
            self._done.set_result(None)
