"""The ASGI side of the endpoint: the callables an ASGI server hands over, and a whole
response sent through them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

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
