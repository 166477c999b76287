"""The public API (``PACKAGE.api``): announce a change to every client that asked to hear
of it, on every worker.

    from .api import notify_list_changed, notify_resource_updated

    notify_resource_updated("file:///project/config.json")
    notify_list_changed("tools")

Both return at once (the notice is delivered in the background) and may be called from a
handler, sync or async, from a worker thread or from any other code of the server
process. Before the server serves, and in a process that serves nothing, they do nothing.
"""

from __future__ import annotations

from .hub import Hub
from .notices import LIST_KINDS, UPDATED

_current: list[Hub] = []  # the hub of the server this process serves (the last bound)


def serving(hub: Hub) -> None:
    """Make ``hub`` the one the API announces to (called by the transports)."""
    _current[:] = [hub]


def notify_resource_updated(uri: str) -> None:
    """Tell every session subscribed to ``uri`` (``resources/subscribe``, or the
    ``resourceSubscriptions`` of a 2026-07-28 ``subscriptions/listen``) that it changed:
    ``notifications/resources/updated``."""
    if type(uri) is not str or not uri:
        raise ValueError(f"notify_resource_updated needs a resource URI (a string), got {uri!r}")
    if _current:
        _current[0].announce((UPDATED, uri))


def notify_list_changed(kind: str) -> None:
    """Tell every client that the list of ``kind`` ("tools", "prompts" or "resources")
    changed: ``notifications/KIND/list_changed``. Sent only for the kinds the project
    declares in ``list-changed`` (``[tool.mcp-codegen]``); others are dropped."""
    if kind not in LIST_KINDS:
        raise ValueError(
            f"notify_list_changed takes one of {', '.join(map(repr, LIST_KINDS))}, got {kind!r}"
        )
    if _current:
        _current[0].announce((kind, None))
