"""A published list in cursor pages: tools/list today, prompts/list or resources/list alike.

Each revision's pages are encoded once, on the first request for them, and then sent as
bytes; a cursor names a page of one list (see cursor.py), and anything else is -32602.

A transport may narrow a list for one request (``restrict_listing``: the authorization
layer lists only the tools a token can call). Such a list depends on the caller, so its
2026-07-28 ``cacheScope`` is "private"; its pages are cached per (revision, visible
names), for the ``MAX_VISIBLE_SETS`` pairs used most recently. Unrestricted requests keep
the one cache per revision.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, NamedTuple

from ..jsonrpc import RpcError, dumps_exact
from ..protocol import INVALID_PARAMS, Revision
from .cursor import encode_cursor, page_index

CACHE_SCOPES = ("public", "private")
DEFAULT_TTL_MS = 300_000
DEFAULT_CACHE_SCOPE = "public"
MAX_VISIBLE_SETS = 64

# For this request's context: the names each list (by field) may show; None: everything.
_visible: ContextVar[Mapping[str, frozenset[str]] | None] = ContextVar(
    "mcp_codegen_visible_items", default=None
)


def restrict_listing(field: str, names: frozenset[str]) -> None:
    """List only the items of ``field`` ("tools") named in ``names`` for the rest of the
    current request (its task and what it starts copy the context)."""
    _visible.set({**(_visible.get() or {}), field: names})


class ListCaching(NamedTuple):
    """The caching hints of 2026-07-28 list results and server/discover: how long a client
    may reuse a result (``ttl_ms``), and whether it may share it between users
    (``cache_scope``: ``"public"`` or ``"private"``)."""

    ttl_ms: int = DEFAULT_TTL_MS
    cache_scope: str = DEFAULT_CACHE_SCOPE

    def checked(self) -> ListCaching:
        if type(self.ttl_ms) is not int or self.ttl_ms < 0:
            raise ValueError("ttl_ms is a number of milliseconds, 0 or more")
        if self.cache_scope not in CACHE_SCOPES:
            raise ValueError("cache_scope is 'public' or 'private'")
        return self


class Lister:
    """The pages of one list method. ``field`` names the list in the result ("tools") and
    prefixes its cursors; ``published(revision)`` is every item as that revision's clients
    receive it, in order; ``page_size`` items per page (None: one page)."""

    __slots__ = ("_caching", "_field", "_narrowed", "_pages", "_published", "_size", "_stamp")

    def __init__(
        self,
        field: str,
        published: Callable[[Revision], Sequence[Any]],
        *,
        page_size: int | None,
        caching: ListCaching,
        stamp: Mapping[str, Any],
    ) -> None:
        if page_size is not None and page_size < 1:
            raise ValueError("page_size is a positive number of items, or None")
        self._field = field
        self._published = published
        self._size = page_size
        self._caching = caching
        self._stamp = stamp
        self._pages: dict[str, list[bytes]] = {}
        self._narrowed: OrderedDict[tuple[str, frozenset[str]], list[bytes]] = OrderedDict()

    def page(self, revision: Revision, cursor: Any) -> bytes:
        """The encoded result body of the page ``cursor`` names (None: the first)."""
        restricted = _visible.get()
        names = None if restricted is None else restricted.get(self._field)
        if names is None:
            pages = self._pages.get(revision.name)
            if pages is None:
                pages = self._pages[revision.name] = self._encode(revision)
        else:
            pages = self._narrowed_pages(revision, names)
        if cursor is None:
            return pages[0]
        index = page_index(self._field, cursor)
        if index is None or not 0 < index < len(pages):
            raise RpcError(INVALID_PARAMS, "Invalid cursor")
        return pages[index]

    def _narrowed_pages(self, revision: Revision, names: frozenset[str]) -> list[bytes]:
        key = (revision.name, names)
        pages = self._narrowed.get(key)
        if pages is not None:
            self._narrowed.move_to_end(key)
            return pages
        pages = self._narrowed[key] = self._encode(revision, names)
        if len(self._narrowed) > MAX_VISIBLE_SETS:
            self._narrowed.popitem(last=False)  # the least recently used set
        return pages

    def _encode(self, revision: Revision, names: frozenset[str] | None = None) -> list[bytes]:
        items = list(self._published(revision))
        cache_scope = self._caching.cache_scope
        if names is not None:
            items = [item for item in items if item.get("name") in names]
            cache_scope = "private"  # the list depends on who asks
        size = self._size or max(len(items), 1)
        chunks = [items[i : i + size] for i in range(0, len(items), size)] or [[]]
        pages = []
        for index, chunk in enumerate(chunks):
            cursor = encode_cursor(self._field, index + 1) if index + 1 < len(chunks) else None
            body = revision.list_result(
                self._field,
                chunk,
                cursor,
                ttl_ms=self._caching.ttl_ms,
                cache_scope=cache_scope,
            )
            pages.append(dumps_exact(revision.stamp(body, self._stamp)))
        return pages
