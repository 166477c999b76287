"""A bound on requests running at once, shared by every request a transport takes.

HTTP gives the session of each request the process's ``Slots`` (``Session.admission``):
the envelope then starts a request only with a free slot, and the rest wait their turn
in arrival order, batch members included. One request (a 2025-03-26 batch in one POST)
runs at most ``PER_REQUEST`` handlers at once besides (``Within``): a batch of 10,000
slow calls starts them 32 at a time, the rest waiting their turn in order (without a task
each), and leaves the process's other slots to other requests. A slot is held until the
request's reply is ready. ``ping``, notifications and responses take none: they answer
at once or wake a handler that waits.
"""

from __future__ import annotations

import asyncio
from collections import deque

PER_REQUEST = 32  # handlers one request (a batch) runs at once


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


class Within:
    """A slot of ``outer`` (the process's) and of this request's own ``PER_REQUEST``:
    the same calls as ``Slots``, for the members of one batch."""

    __slots__ = ("_outer", "_own")

    def __init__(self, outer: Slots, limit: int = PER_REQUEST) -> None:
        self._outer = outer
        self._own = Slots(min(limit, outer.limit))

    def take_now(self) -> bool:
        if not self._own.take_now():
            return False
        if self._outer.take_now():
            return True
        self._own.give()
        return False

    async def take(self) -> None:
        await self._own.take()
        try:
            await self._outer.take()
        except BaseException:
            self._own.give()
            raise

    def give(self) -> None:
        self._outer.give()
        self._own.give()
