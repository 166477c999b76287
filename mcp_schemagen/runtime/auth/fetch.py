"""Bounded HTTP requests to the authorization server (standard library only).

Run in a worker thread with a timeout and a size limit, so a hanging or flooding
authorization server costs a request its answer, never the server its event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

MAX_DOCUMENT_BYTES = 512 * 1024


class FetchError(Exception):
    """The document could not be had; the message says from where and why (no secrets)."""


async def fetch_json(
    url: str,
    timeout: float,
    *,
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    document, _ = await _fetched(url, timeout, data, headers or {})
    return document


async def fetch_json_with_max_age(url: str, timeout: float) -> tuple[dict[str, Any], float | None]:
    """The document and how many seconds it may be kept by its ``Cache-Control`` (less its
    ``Age``): 0 for no-cache/no-store, None when the answer says nothing."""
    return await _fetched(url, timeout, None, {})


async def _fetched(
    url: str, timeout: float, data: bytes | None, headers: dict[str, str]
) -> tuple[dict[str, Any], float | None]:
    try:
        return await asyncio.wait_for(
            asyncio.to_thread(_fetch, url, timeout, data, headers), timeout + 1.0
        )
    except TimeoutError:
        raise FetchError(f"{url}: no answer within {timeout:g} s") from None


def max_age_of(cache_control: str | None, age: str | None) -> float | None:
    """RFC 9111 section 5.2.2: ``no-store``/``no-cache`` keep nothing; ``max-age=N``
    keeps N seconds, less the ``Age`` the answer already has."""
    if not cache_control:
        return None
    seconds: float | None = None
    for directive in cache_control.lower().split(","):
        name, _, value = directive.strip().partition("=")
        if name in ("no-store", "no-cache"):
            return 0.0
        if name == "max-age" and value.strip().strip('"').isdigit():
            seconds = float(value.strip().strip('"'))
    if seconds is not None and age is not None and age.strip().isdigit():
        seconds = max(0.0, seconds - int(age.strip()))
    return seconds


def _fetch(
    url: str, timeout: float, data: bytes | None, headers: dict[str, str]
) -> tuple[dict[str, Any], float | None]:
    # Imported here, in the first fetch's worker thread: urllib.request (with http.client
    # and email) is 3.5 MiB of RSS that a server without authorization, which still reads
    # these settings, never needs.
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=data, headers={"Accept": "application/json"})
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(MAX_DOCUMENT_BYTES + 1)
            max_age = max_age_of(response.headers.get("Cache-Control"), response.headers.get("Age"))
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{url}: HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"{url}: {type(exc).__name__}: {reason}") from None
    if len(body) > MAX_DOCUMENT_BYTES:
        raise FetchError(f"{url}: larger than {MAX_DOCUMENT_BYTES} bytes")
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise FetchError(f"{url}: not JSON") from None
    if type(document) is not dict:
        raise FetchError(f"{url}: not a JSON object")
    return document, max_age
