"""Carries every notice from the code that announces it to every listener of every worker.

A notice announced anywhere in the process (a handler on the event loop, a sync handler
in a worker thread, any other thread) is queued on the loop the server runs on and
published, in order, through the store: the in-memory store hands it straight back to
this worker, Redis pub/sub hands it to every worker subscribed to it, this one included.
Each worker then offers it to the listeners it holds (a stdio session, a session's GET
stream, a ``subscriptions/listen`` stream), which decide whether it is theirs. So a
notice reaches each listener once, wherever it was announced, and a listener's
subscriptions never need to be known by any other worker.

Publishing survives a short store outage (a Redis restart): the publisher retries for
``PUBLISH_PATIENCE_SECONDS`` before dropping the notice with a line on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .notices import Notice, decode, encode

if TYPE_CHECKING:  # a stdio server never loads the store (tests/runtime/test_startup_imports)
    from ..store import Store

Listener = Callable[[Notice], None]
PUBLISH_PATIENCE_SECONDS = 15.0
RETRY_SECONDS = 0.2


class Hub:
    """One per server process; bound to the running loop by the transport (``bind``)."""

    def __init__(self) -> None:
        self._listeners: set[Listener] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._store: Store | None = None
        self._queue: asyncio.Queue[bytes] | None = None
        self._publisher: asyncio.Task[None] | None = None
        self.closing: asyncio.Future[None] | None = None  # set when the server stops

    # ------------------------------------------------------------------ lifecycle

    def bind(self, store: Store | None) -> None:
        """Serve on the running loop; notices travel through ``store`` (None: this
        process only, as over stdio)."""
        self._loop = asyncio.get_running_loop()
        self._store = store
        self._queue = asyncio.Queue()
        self.closing = self._loop.create_future()
        if store is not None:
            store.on_notice = self.heard
        self._publisher = asyncio.ensure_future(self._publish_forever())

    async def close(self) -> None:
        """Stop: listen streams end gracefully, nothing more is published."""
        if self.closing is not None and not self.closing.done():
            self.closing.set_result(None)
        if self._publisher is not None:
            self._publisher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._publisher
            self._publisher = None
        self._loop = None

    # ------------------------------------------------------------------ listeners

    def attach(self, listener: Listener) -> Callable[[], None]:
        """Offer every notice to ``listener`` (on the loop) until the returned function
        is called."""
        self._listeners.add(listener)
        return lambda: self._listeners.discard(listener)

    def heard(self, raw: bytes) -> None:
        """A notice from the store: offer it to every listener of this worker."""
        notice = decode(raw)
        if notice is None:
            return
        for listener in list(self._listeners):
            try:
                listener(notice)
            except Exception as exc:  # one broken listener must not starve the others
                print(f"subscriptions: listener failed: {exc!r}", file=sys.stderr)

    # ------------------------------------------------------------------ announcing

    def announce(self, notice: Notice) -> bool:
        """Queue ``notice`` for every worker, from any thread. False when the server is
        not serving (nobody can be listening)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return False
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._enqueue(notice)
            return True
        try:
            loop.call_soon_threadsafe(self._enqueue, notice)
        except RuntimeError:  # the loop closed meanwhile: the server stopped
            return False
        return True

    def _enqueue(self, notice: Notice) -> None:
        if self._queue is not None:
            self._queue.put_nowait(encode(notice))

    async def _publish_forever(self) -> None:
        assert self._queue is not None
        while True:
            raw = await self._queue.get()
            if self._store is None:
                self.heard(raw)
                continue
            from ..store import StoreUnavailable  # loaded already: a store is bound

            give_up = time.monotonic() + PUBLISH_PATIENCE_SECONDS
            while True:
                try:
                    await self._store.publish_notice(raw)
                    break
                except StoreUnavailable:
                    if time.monotonic() > give_up:
                        print(f"subscriptions: store unavailable, dropped {raw!r}", file=sys.stderr)
                        break
                    await asyncio.sleep(RETRY_SECONDS)
