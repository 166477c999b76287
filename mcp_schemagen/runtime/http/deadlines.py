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
a response's head and body with a system call each, and this sends both in one.

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


class Coalescing:
    """A transport whose writes made in one pass of the event loop leave in one send:
    uvicorn writes a response's status line and headers, then its body, each with a
    system call of its own (and, over loopback, a wake-up of the client for each); the
    first is held until the second comes or the pass ends, whichever is first. Anything
    else (closing included, which sends what is held first) is the transport's."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._held: bytes | None = None
        self._loop = asyncio.get_running_loop()

    def write(self, data: bytes) -> None:
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
        self._transport.close()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.flush()
        self._transport.set_protocol(protocol)

    def is_closing(self) -> bool:
        return self._transport.is_closing()

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
            self.transport = Coalescing(transport)  # type: ignore[assignment]
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

    return HeaderDeadlineHttpTools


_MAKERS: dict[str, Callable[[], type[asyncio.Protocol]]] = {
    "HeaderDeadlineH11": _h11,
    "HeaderDeadlineHttpTools": _httptools,
}
