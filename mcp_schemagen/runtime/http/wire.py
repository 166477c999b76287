"""The ASGI side of the endpoint: the callables an ASGI server hands over, a request
body read within its limits, and a whole response sent through them."""

from __future__ import annotations

import asyncio
import types
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any

from .settings import HttpSettings

AsgiSend = Callable[[dict[str, Any]], Awaitable[None]]
AsgiReceive = Callable[[], Awaitable[dict[str, Any]]]


async def send_body(
    send: AsgiSend,
    status: int,
    body: bytes,
    content_type: bytes | None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    head = [(b"content-length", b"%d" % len(body))]
    if content_type is not None:
        head.append((b"content-type", content_type))
    if headers:
        head += headers
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


class BodyRefused(Exception):
    """A request body over the size limit (413) or not whole within the deadline (408)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def read_body(
    headers: Mapping[str, str], receive: AsgiReceive, settings: HttpSettings
) -> bytes:
    """The request body, refused (never buffered further) as soon as it exceeds the size
    limit or has not arrived whole within the body deadline. Every reader of a body (the
    endpoint, the authorization guard before it) goes through here, so neither limit can
    be bypassed."""
    limit = settings.max_body_bytes
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyRefused(413, f"Request body larger than {limit} bytes")
    # Mostly the whole body is there when the app is called: the first receive answers
    # without waiting, and a body that came whole needs no deadline armed (a timer per
    # request). Whatever has to wait for the client does so under the deadline.
    # Only a native coroutine (uvicorn's receive) is stepped by hand: other servers' own
    # awaitables (granian's) are awaited as they expect, under the deadline.
    pending = receive()
    first: Generator[Any, None, dict[str, Any]] | None = None
    waiting_on: Any = None
    if type(pending) is types.CoroutineType:
        first = pending.__await__()
        try:
            waiting_on = first.send(None)
        except StopIteration as arrived:
            message: dict[str, Any] = arrived.value
            if message["type"] != "http.request" or not message.get("more_body", False):
                return _whole(message, limit)
            first = None
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(settings.body_timeout_seconds):
            if first is not None:
                message = await _resumed(first, waiting_on)
            elif type(pending) is not types.CoroutineType:
                message = await pending
            while True:
                if message["type"] != "http.request":
                    break
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise BodyRefused(413, f"Request body larger than {limit} bytes")
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
                message = await receive()
    except TimeoutError:
        seconds = settings.body_timeout_seconds
        raise BodyRefused(408, f"Request body not received within {seconds:g} seconds") from None
    return b"".join(chunks)


def _whole(message: dict[str, Any], limit: int) -> bytes:
    """The body of a request that arrived in one message (or none: a disconnect)."""
    if message["type"] != "http.request":
        return b""
    body: bytes = message.get("body", b"")
    if len(body) > limit:
        raise BodyRefused(413, f"Request body larger than {limit} bytes")
    return body


@types.coroutine
def _resumed(
    started: Generator[Any, None, dict[str, Any]], waiting_on: Any
) -> Generator[Any, None, dict[str, Any]]:
    """Go on awaiting ``started``, an awaitable's iterator whose first step yielded
    ``waiting_on``: the task waits on what it yields, and what the task throws in (the
    deadline's cancellation) reaches it, as with a plain ``await``."""
    while True:
        try:
            sent = yield waiting_on
        except BaseException as exc:
            try:
                waiting_on = started.throw(exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                waiting_on = started.send(sent)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
