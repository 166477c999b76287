"""The ASGI side of the endpoint: the callables an ASGI server hands over, a request
body read within its limits, and a whole response sent through them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
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
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(settings.body_timeout_seconds):
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    break
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise BodyRefused(413, f"Request body larger than {limit} bytes")
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
    except TimeoutError:
        seconds = settings.body_timeout_seconds
        raise BodyRefused(408, f"Request body not received within {seconds:g} seconds") from None
    return b"".join(chunks)
