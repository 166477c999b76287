"""A deadline on a request's header section, for uvicorn (``python -m PACKAGE --http``).

uvicorn closes a connection idle between requests (``timeout_keep_alive``) but sets no
limit on how long a request's headers may take: a client sending them a byte at a time
holds its connection for ever. These protocol classes (uvicorn's ``http`` setting) close a
connection whose header section has not arrived whole within
``MCP_HTTP_HEADER_TIMEOUT_SECONDS`` (``HttpSettings.header_timeout_seconds``) of its first
byte, or of the connection opening. The body has its own deadline in the app
(``body_timeout_seconds``, app.py), which any ASGI server honours; under another ASGI
server, the header deadline is that server's to enforce (granian, gunicorn: see README).

The httptools class also hands its connections a ``Coalescing`` transport: uvicorn writes
a response's head and body with a system call each, and this sends both in one. And it
closes a connection whose request body was not read whole (a 413, a 408) by a lingering
close (``Lingering``): the answer is sent, then the write side shut, then what the client
still sends is read and dropped until it closes (or ``LINGER_SECONDS``): closing a socket
with unread data makes the kernel send a reset, and a client still sending its body
would lose the 413 it had not read yet.

Module-level classes, since uvicorn hands its settings (this class among them) to worker
processes by pickling them.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from .settings import HttpSettings


@functools.cache
def header_timeout_seconds() -> float:
    return HttpSettings.from_environment().header_timeout_seconds


class _Deadline:
    """Closes ``transport`` when armed for too long."""

    __slots__ = ("_timer",)

    def __init__(self) -> None:
        self._timer: asyncio.TimerHandle | None = None

    def arm(self, transport: asyncio.BaseTransport) -> None:
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(header_timeout_seconds(), _close, transport)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


_JOINED_UP_TO = 64 * 1024  # a body at least this large leaves in a send of its own
LINGER_SECONDS = 30.0  # the longest a refused body is read and dropped (nginx: 30 s)
LINGER_IDLE_SECONDS = 5.0  # ... or until the client sends nothing for this long


class Lingering(asyncio.Protocol):
    """Takes over a connection whose answer is sent but whose request body is still
    arriving: shuts the write side (the client sees the answer, then the end), reads and
    drops what comes (never keeps it), and closes when the client does, falls silent
    for ``LINGER_IDLE_SECONDS`` or ``LINGER_SECONDS`` have passed. ``owner`` (uvicorn's
    protocol) learns of the end as if it had closed the connection itself."""

    def __init__(self, transport: asyncio.Transport, owner: asyncio.BaseProtocol) -> None:
        self._transport = transport
        self._owner = owner
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + LINGER_SECONDS
        self._timer = loop.call_later(LINGER_IDLE_SECONDS, self._idle)
        self._heard = loop.time()

    @classmethod
    def start(cls, transport: asyncio.Transport, owner: asyncio.BaseProtocol) -> None:
        transport.write_eof()  # after what is buffered: the answer leaves whole
        transport.set_protocol(cls(transport, owner))
        transport.resume_reading()  # uvicorn may have paused it while the body piled up

    def data_received(self, data: bytes) -> None:
        self._heard = asyncio.get_running_loop().time()
        if self._heard > self._deadline:
            self._transport.close()

    def eof_received(self) -> bool:
        return False  # the client is done: the transport closes

    def _idle(self) -> None:
        now = asyncio.get_running_loop().time()
        quiet = now - self._heard
        if quiet >= LINGER_IDLE_SECONDS or now >= self._deadline:
            self._transport.close()
        else:
            wait = min(LINGER_IDLE_SECONDS - quiet, self._deadline - now)
            self._timer = asyncio.get_running_loop().call_later(wait, self._idle)

    def connection_lost(self, exc: Exception | None) -> None:
        self._timer.cancel()
        self._owner.connection_lost(exc)


class Coalescing:
    """A transport whose writes made in one pass of the event loop leave in one send:
    uvicorn writes a response's status line and headers, then its body, each with a
    system call of its own (and, over loopback, a wake-up of the client for each); the
    first is held until the second comes or the pass ends, whichever is first. Anything
    else (closing included, which sends what is held first) is the transport's."""

    __slots__ = ("_closed", "_held", "_loop", "_owner", "_transport", "_unread")

    def __init__(
        self,
        transport: asyncio.Transport,
        owner: asyncio.BaseProtocol | None = None,
        unread: Callable[[], bool] | None = None,
    ) -> None:
        """``unread``: whether a request body is still arriving (then ``close`` lingers,
        for ``owner``, the protocol)."""
        self._transport = transport
        self._held: bytes | None = None
        self._loop = asyncio.get_running_loop()
        self._owner = owner
        self._unread = unread
        self._closed = False

    def write(self, data: bytes) -> None:
        if self._closed:  # lingering: the write side is shut
            return
        held = self._held
        if held is None:
            if data:
                self._held = bytes(data)
                self._loop.call_soon(self.flush)
            return
        self._held = None
        if len(data) < _JOINED_UP_TO:
            self._transport.write(held + data)
        else:  # a large body is not copied to save one system call
            self._transport.write(held)
            self._transport.write(data)

    def writelines(self, data: Any) -> None:  # not uvicorn's, but kept in order if used
        self.write(b"".join(data))

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if not self._transport.is_closing():  # the client left meanwhile: nobody reads
                self._transport.write(held)

    def close(self) -> None:
        self.flush()
        if self._closed:  # asked again (uvicorn shutting down): lingering ends now
            self._transport.close()
            return
        self._closed = True
        transport = self._transport
        if (
            self._unread is not None
            and self._owner is not None
            and not transport.is_closing()
            and transport.can_write_eof()
            and self._unread()
        ):
            Lingering.start(transport, self._owner)
        else:
            transport.close()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.flush()
        self._transport.set_protocol(protocol)

    def is_closing(self) -> bool:
        return self._closed or self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _close(transport: asyncio.BaseTransport) -> None:
    if not transport.is_closing():
        transport.close()


def protocol_class() -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools when installed, as uvicorn itself prefers) with
    the header deadline."""
    try:
        return _class("HeaderDeadlineHttpTools")
    except ImportError:  # httptools missing (uvicorn's own choice then): the h11 class serves
        return _class("HeaderDeadlineH11")


def __getattr__(name: str) -> Any:
    # The classes are made on first use, so importing this module needs no uvicorn; a
    # worker process unpickling uvicorn's settings finds them here by name. Each is made
    # alone: a worker serving with httptools never imports h11.
    if name in _MAKERS:
        return _class(name)
    raise AttributeError(name)


@functools.cache
def _class(name: str) -> type[asyncio.Protocol]:
    made = _MAKERS[name]()
    made.__qualname__ = made.__name__ = name  # pickled by reference: this module, this name
    made.__module__ = __name__
    return made


def _h11() -> type[asyncio.Protocol]:
    from uvicorn.protocols.http import h11_impl
    from uvicorn.protocols.http.h11_impl import H11Protocol

    idle = h11_impl.h11.IDLE  # type: ignore[attr-defined]  # h11 through uvicorn, declared

    class HeaderDeadlineH11(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._header_deadline = _Deadline()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._header_deadline.arm(transport)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is idle:  # a request begun, headers not yet whole
                if data:
                    self._header_deadline.arm(self.transport)
            else:
                self._header_deadline.disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._header_deadline.disarm()
            super().connection_lost(exc)

    return HeaderDeadlineH11


def _httptools() -> type[asyncio.Protocol]:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeaderDeadlineHttpTools(HttpToolsProtocol):
        # A request's header section mostly arrives whole in one read: the deadline is
        # armed only when a read ends with a request begun and its headers incomplete,
        # not (a timer made and cancelled) on every request.
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._header_deadline = _Deadline()
            self._headers_pending = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.transport = Coalescing(  # type: ignore[assignment]
                transport, self, self._body_unread
            )
            self._header_deadline.arm(transport)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._headers_pending:
                self._header_deadline.arm(self.transport)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._headers_pending = True

        def on_headers_complete(self) -> None:
            self._headers_pending = False
            self._header_deadline.disarm()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._header_deadline.disarm()
            super().connection_lost(exc)

        def _body_unread(self) -> bool:
            """A request begun whose body has not arrived whole (or headers not yet)."""
            cycle = self.cycle
            return self._headers_pending or (cycle is not None and cycle.more_body)

    return HeaderDeadlineHttpTools


_MAKERS: dict[str, Callable[[], type[asyncio.Protocol]]] = {
    "HeaderDeadlineH11": _h11,
    "HeaderDeadlineHttpTools": _httptools,
}
