"""Waiting for new events on many Redis streams over one connection.

Every resumed SSE stream (GET with ``Last-Event-ID``) waits for its next event. Each
waiting on an ``XREAD BLOCK`` of its own took a connection per stream: a thousand held
streams were a thousand Redis clients, opened and closed again at every lease check,
while calls queued behind them; and the connections kept for reuse stayed after the
streams ended. Here one task reads for all of them: one ``XREAD BLOCK`` names every
followed stream (each from the oldest id a reader waits after), for at most
``BLOCK_SECONDS`` so that a stream followed meanwhile joins within that, and hands each
reader the entries after its own id. The connection is closed once nobody has waited for
``IDLE_SECONDS``; a burst of readers over, ``after_burst`` is called (the store gives back
the pooled connections the burst opened).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

BLOCK_SECONDS = 0.25  # one XREAD's wait: how soon a newly followed stream is included
IDLE_SECONDS = 5.0  # the connection is kept this long after the last reader leaves
BURST = 8  # readers at once from which the end of their burst is reported

Entries = list[tuple[bytes, dict[bytes, bytes]]]


def _order(entry_id: bytes) -> tuple[int, int]:
    milliseconds, _, sequence = entry_id.partition(b"-")
    return int(milliseconds), int(sequence or 0)


class _Reader:
    __slots__ = ("after", "found")

    def __init__(self, after: bytes) -> None:
        self.after = after
        self.found: asyncio.Future[Entries] = asyncio.get_running_loop().create_future()


class StreamFollower:
    """``connect()`` makes the reading client (one connection, no socket timeout);
    ``guard`` turns its failures into the store's (a context manager); ``after_burst``
    runs when the last of at least ``BURST`` readers at once has been gone a while."""

    def __init__(
        self,
        connect: Callable[[], Any],
        guard: Callable[[], contextlib.AbstractContextManager[None]],
        close: Callable[[Any], Awaitable[None]],
        after_burst: Callable[[], Awaitable[None]],
        command_timeout: float,
    ) -> None:
        self._connect = connect
        self._guard = guard
        self._close = close
        self._after_burst = after_burst
        self._command_timeout = command_timeout
        self._readers: dict[str, list[_Reader]] = {}
        self._count = 0
        self._peak = 0  # most readers at once since the connection opened
        self._arrived = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def wait(self, key: str, after: bytes, timeout: float) -> Entries:
        """The entries of stream ``key`` after id ``after`` that arrive within
        ``timeout`` seconds ([] when none did); the store's error when Redis fails."""
        reader = _Reader(after)
        self._readers.setdefault(key, []).append(reader)
        self._count += 1
        self._peak = max(self._peak, self._count)
        self._arrived.set()
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())
        try:
            async with asyncio.timeout(timeout):
                return await reader.found
        except TimeoutError:
            return []
        finally:
            self._leave(key, reader)

    def _leave(self, key: str, reader: _Reader) -> None:
        waiting = self._readers.get(key)
        if waiting is not None and reader in waiting:
            waiting.remove(reader)
            self._count -= 1
            if not waiting:
                del self._readers[key]

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    async def _run(self) -> None:
        client = self._connect()
        try:
            while await self._someone_waits():
                streams = {
                    key: min((r.after for r in readers), key=_order)
                    for key, readers in self._readers.items()
                }
                block = int(BLOCK_SECONDS * 1000)
                try:
                    with self._guard():
                        found = await asyncio.wait_for(
                            client.xread(streams, block=block),
                            BLOCK_SECONDS + self._command_timeout,
                        )
                except Exception as exc:  # the store's error, for every reader waiting
                    for key, readers in list(self._readers.items()):
                        for reader in list(readers):
                            if not reader.found.done():
                                reader.found.set_exception(exc)
                            self._leave(key, reader)
                    return
                for key, entries in found or ():
                    self._hand(key.decode() if type(key) is bytes else key, entries)
        finally:
            with contextlib.suppress(Exception):
                await self._close(client)
            burst, self._peak = self._peak >= BURST, 0
            if burst and not self._readers:
                with contextlib.suppress(Exception):
                    await self._after_burst()
            if self._readers:  # came while this one was closing: read for them anew
                self._task = asyncio.ensure_future(self._run())

    def _hand(self, key: str, entries: Entries) -> None:
        for reader in list(self._readers.get(key, ())):
            after = _order(reader.after)
            newer = [entry for entry in entries if _order(entry[0]) > after]
            if newer and not reader.found.done():
                reader.found.set_result(newer)
                self._leave(key, reader)  # not read for again before it resumes

    async def _someone_waits(self) -> bool:
        """True while readers wait; when none has for ``IDLE_SECONDS``, False."""
        while not self._readers:
            self._arrived.clear()
            try:
                async with asyncio.timeout(IDLE_SECONDS):
                    await self._arrived.wait()
            except TimeoutError:
                return bool(self._readers)
        return True
