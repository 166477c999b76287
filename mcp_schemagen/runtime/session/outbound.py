"""Requests this server sends its client over one connection, and their answers.

Session revisions (2024-11-05 to 2025-11-25) ask the client with a JSON-RPC request of
their own; the client's response comes back on the same connection and wakes the handler
waiting for it. Each side can end the wait: the tool call being cancelled (or timing
out) tells the client with ``notifications/cancelled``; the connection closing or the
client answering with an error wakes the handler with an exception.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Awaitable, Callable
from typing import Any

from ..jsonrpc import RequestId, Send, notification, request

# Waits for the client's response to a request id, from wherever it arrives (a transport
# whose responses may reach another worker passes one over its shared store); None when
# ``timeout`` seconds pass without it.
Waiter = Callable[[RequestId, float], Awaitable[dict[str, Any] | None]]


class ClientGone(Exception):
    """The connection closed while a request to the client was waiting for its answer."""


class Outbound:
    """The requests in flight from this server to one client, by id."""

    __slots__ = ("_ids", "_prefix", "_waiting", "waiter")

    def __init__(self, waiter: Waiter | None = None) -> None:
        self.waiter = waiter  # None: responses arrive on this connection (``answer``)
        # String ids in a space of their own, never meeting the client's ids; the random
        # part keeps them apart when several workers serve one session.
        self._prefix = ""  # drawn on the first request: most sessions never send one
        self._ids = itertools.count(1)
        self._waiting: dict[RequestId, asyncio.Future[dict[str, Any]]] = {}

    async def ask(self, send: Send, method: str, params: dict[str, Any], timeout: float) -> Any:
        """Send a request and return the client's response message (``result`` or
        ``error``); ``TimeoutError`` after ``timeout`` seconds, when the client is told
        to stop with ``notifications/cancelled``, as it is when the waiting call is
        cancelled."""
        if not self._prefix:
            self._prefix = f"mcp-codegen-{os.urandom(4).hex()}-"
        request_id = f"{self._prefix}{next(self._ids)}"
        if self.waiter is not None:
            return await self._elsewhere(self.waiter, send, request_id, method, params, timeout)
        waiting: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiting
        try:
            send(request(request_id, method, params))
            return await asyncio.wait_for(waiting, timeout)
        except TimeoutError:
            _cancel(send, request_id, f"no answer within {timeout:g} s")
            raise
        except asyncio.CancelledError:
            if not waiting.done() or waiting.cancelled():
                _cancel(send, request_id, "the tool call was cancelled")
            raise
        finally:
            self._waiting.pop(request_id, None)

    async def _elsewhere(
        self,
        waiter: Waiter,
        send: Send,
        request_id: RequestId,
        method: str,
        params: dict[str, Any],
        timeout: float,
    ) -> dict[str, Any]:
        answered = False
        try:
            waiting = waiter(request_id, timeout)
            # ``send`` only queues: the request leaves when the loop next runs, and by then
            # awaiting the waiter has run it to its first wait (where it registers).
            send(request(request_id, method, params))
            response = await waiting
            answered = response is not None
        finally:
            if not answered:  # timed out, or the call was cancelled while waiting
                _cancel(send, request_id, "no answer in time or the tool call was cancelled")
        if response is None:
            raise TimeoutError
        return response

    def answer(self, message: dict[str, Any]) -> bool:
        """Route a response from the client to the request waiting for it; False when no
        request of ours has that id (an answer to nothing, or one that came too late)."""
        try:
            waiting = self._waiting.pop(message["id"])
        except (KeyError, TypeError):
            return False
        if not waiting.done():
            waiting.set_result(message)
        return True

    def close(self) -> None:
        """The connection is gone: every waiting handler gets ``ClientGone``."""
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(ClientGone("the client disconnected before answering"))


def _cancel(send: Send, request_id: RequestId, reason: str) -> None:
    send(notification("notifications/cancelled", {"requestId": request_id, "reason": reason}))
