"""http/wire.read_body: a body there at once is read without a deadline armed; one that
makes the app wait is read under the deadline, whatever kind of awaitable ``receive``
returns."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mcp_schemagen.runtime.http.settings import HttpSettings
from mcp_schemagen.runtime.http.wire import BodyRefused, read_body

SETTINGS = HttpSettings(max_body_bytes=10, body_timeout_seconds=0.2)
Receive = Callable[[], Awaitable[dict[str, Any]]]


def chunks(*parts: bytes, delay: float = 0.0, futures: bool = False) -> Receive:
    """A receive giving ``parts`` one message each (``delay`` seconds apart; as plain
    futures rather than coroutines with ``futures``), then waiting for ever."""
    messages = [
        {"type": "http.request", "body": part, "more_body": i < len(parts) - 1}
        for i, part in enumerate(parts)
    ]

    async def next_message() -> dict[str, Any]:
        if not messages:
            await asyncio.Event().wait()  # the client sends nothing more
        if delay:
            await asyncio.sleep(delay)
        return messages.pop(0)

    def receive() -> Awaitable[dict[str, Any]]:
        if futures:
            return asyncio.ensure_future(next_message())
        return next_message()

    return receive


def read(receive: Receive, headers: dict[str, str] | None = None) -> bytes:
    return asyncio.run(read_body(headers or {}, receive, SETTINGS))


@pytest.mark.parametrize("futures", [False, True])
def test_bodies_whole_or_in_parts_now_or_later(futures: bool) -> None:
    assert read(chunks(b'{"a":1}', futures=futures)) == b'{"a":1}'
    assert read(chunks(b'{"a"', b":1}", futures=futures)) == b'{"a":1}'
    assert read(chunks(b'{"a"', b":1}", delay=0.01, futures=futures)) == b'{"a":1}'
    assert read(chunks(b"", futures=futures)) == b""


@pytest.mark.parametrize("futures", [False, True])
def test_too_large_or_too_late_is_refused(futures: bool) -> None:
    with pytest.raises(BodyRefused) as large:
        read(chunks(b"x" * 11, futures=futures))
    assert large.value.status == 413
    with pytest.raises(BodyRefused) as large:
        read(chunks(b"x" * 6, b"x" * 6, futures=futures))
    assert large.value.status == 413
    # The first part at once, the rest never: the deadline still holds.
    with pytest.raises(BodyRefused) as late:
        read(_then_silence(futures))
    assert late.value.status == 408
    with pytest.raises(BodyRefused) as late:
        read(chunks(b"{}", delay=1.0, futures=futures))  # nothing until past the deadline
    assert late.value.status == 408


def _then_silence(futures: bool) -> Receive:
    given = chunks(b"{", b"}", futures=futures)
    calls = 0

    def receive() -> Awaitable[dict[str, Any]]:
        nonlocal calls
        calls += 1
        if calls == 1:
            return given()
        return chunks(futures=futures)()  # waits for ever

    return receive


def test_a_disconnect_before_any_body_is_an_empty_body() -> None:
    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    assert read(receive) == b""
