"""A bound on requests running at once, shared by every request a transport takes.

HTTP gives the session of each request the process's ``Slots`` (``Session.admission``):
the envelope then starts a request only with a free slot, and the rest wait their turn
in arrival order, batch members included, so a batch of 10,000 slow calls runs at most
``limit`` handlers. A slot is held until the request's reply is ready. ``ping``,
notifications and responses take none: they answer at once or wake a handler that waits.
"""

from __future__ import annotations

import asyncio
from collections import deque


class Slots:
    """``limit`` slots; ``take_now`` or ``take`` one, ``give`` it back."""

    __slots__ = ("_waiting", "limit", "running")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the bound on running requests must be 1 or more, not {limit}")
        self.limit = limit
        self.running = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    def take_now(self) -> bool:
        """A slot at once, unless none is free or others wait for one (who came first)."""
        if self.running < self.limit and not self._waiting:
            self.running += 1
            return True
        return False

    async def take(self) -> None:
        """Wait for a slot (first come, first served)."""
        if self.take_now():
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            await waiter  # ``give`` hands its slot over: ``running`` already counts it
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give()  # handed over as the waiter was cancelled: pass it on
            else:
                self._waiting.remove(waiter)
            raise

    def give(self) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot passes to the next in line
                return
        self.running -= 1

    def waiting(self) -> int:
        return len(self._waiting)
