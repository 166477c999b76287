"""What a change is, and how each listener hears of it.

A notice is ``(kind, uri)``: kind ``"updated"`` with the resource's URI, one of
``LIST_KINDS`` (its list changed) with ``None``, or ``"task"`` with a task's id (its
status changed: a listener reads the task itself, so the notice carries nothing of it). Between workers it travels as the JSON
array ``[kind, uri]``.
"""

from __future__ import annotations

from typing import Any

import orjson

UPDATED = "updated"
TASK = "task"
LIST_KINDS: tuple[str, ...] = ("tools", "prompts", "resources")
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"  # 2026-07-28

Notice = tuple[str, str | None]


def encode(notice: Notice) -> bytes:
    return orjson.dumps(notice)


def decode(raw: bytes) -> Notice | None:
    """The notice ``raw`` carries; None for anything else (a foreign publisher)."""
    try:
        kind, uri = orjson.loads(raw)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None
    if kind in (UPDATED, TASK) and type(uri) is str:
        return (kind, uri)
    if kind in LIST_KINDS and uri is None:
        return (kind, None)
    return None


def notification(notice: Notice, meta: dict[str, Any] | None = None) -> bytes:
    """The JSON-RPC notification of ``notice`` (``meta``: the params' ``_meta``)."""
    kind, uri = notice
    params: dict[str, Any] = {}
    if meta is not None:
        params["_meta"] = meta
    if kind == UPDATED:
        params["uri"] = uri
        method = "notifications/resources/updated"
    else:
        method = f"notifications/{kind}/list_changed"
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params:
        message["params"] = params
    return orjson.dumps(message)
