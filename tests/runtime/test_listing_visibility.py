"""A list narrowed for one request (``restrict_listing``, which the authorization layer
uses for ``list-tools = "callable"``): filtered by name, paged on its own, private, and
cached per set of visible names with a bound."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import orjson

from mcp_schemagen.runtime.core.listing import (
    MAX_VISIBLE_SETS,
    ListCaching,
    Lister,
    restrict_listing,
)
from mcp_schemagen.runtime.protocol import BY_NAME, Revision

STATELESS = BY_NAME["2026-07-28"]
SESSION_ERA = BY_NAME["2025-11-25"]
PROMPTS = [{"name": f"prompt-{i}"} for i in range(5)]
STAMP = {"io.modelcontextprotocol/serverInfo": {"name": "t", "version": "1"}}
T = TypeVar("T")


class CountingLister:
    """A lister of PROMPTS that counts how often it encodes a list (asks for the items)."""

    def __init__(self, page_size: int | None = None) -> None:
        self.encoded = 0
        self.lister = Lister(
            "prompts", self._items, page_size=page_size, caching=ListCaching(), stamp=STAMP
        )

    def _items(self, _: Revision) -> list[dict[str, Any]]:
        self.encoded += 1
        return PROMPTS


def narrowed(names: set[str] | None, run: Callable[[], T], field: str = "prompts") -> T:
    """``run()`` in a fresh context, as one request whose list shows only ``names``."""

    def request() -> T:
        if names is not None:
            restrict_listing(field, frozenset(names))
        return run()

    return contextvars.copy_context().run(request)


def every_page(lister: Lister, revision: Revision) -> list[dict[str, Any]]:
    pages, cursor = [], None
    while True:
        pages.append(orjson.loads(lister.page(revision, cursor)))
        cursor = pages[-1].get("nextCursor")
        if cursor is None:
            return pages


def test_a_narrowed_list_shows_only_the_named_items_on_its_own_pages() -> None:
    lister = CountingLister(page_size=1).lister
    for revision in (SESSION_ERA, STATELESS):
        pages = narrowed({"prompt-1", "prompt-3"}, partial(every_page, lister, revision))
        assert [item for page in pages for item in page["prompts"]] == [PROMPTS[1], PROMPTS[3]]
        assert len(pages) == 2
    full = narrowed(None, lambda: every_page(lister, STATELESS))
    assert [item for page in full for item in page["prompts"]] == PROMPTS


def test_a_narrowed_list_is_private_and_the_full_one_keeps_its_scope() -> None:
    lister = CountingLister().lister
    page = narrowed({"prompt-0"}, lambda: orjson.loads(lister.page(STATELESS, None)))
    assert page["cacheScope"] == "private"
    assert orjson.loads(lister.page(STATELESS, None))["cacheScope"] == "public"


def test_a_restriction_of_another_list_changes_nothing() -> None:
    lister = CountingLister().lister
    page = narrowed({"x"}, lambda: orjson.loads(lister.page(STATELESS, None)), field="tools")
    assert page["prompts"] == PROMPTS and page["cacheScope"] == "public"


def test_pages_are_cached_per_visible_set_and_the_least_recently_used_set_is_dropped() -> None:
    counting = CountingLister()
    lister = counting.lister

    def ask(index: int) -> bytes:
        return narrowed({f"only-{index}"}, lambda: lister.page(STATELESS, None))

    for index in range(MAX_VISIBLE_SETS):
        ask(index)
    assert counting.encoded == MAX_VISIBLE_SETS
    ask(0)  # cached, and now the most recently used
    assert counting.encoded == MAX_VISIBLE_SETS
    ask(MAX_VISIBLE_SETS)  # one set too many: set 1, the least recently used, goes
    assert counting.encoded == MAX_VISIBLE_SETS + 1
    ask(0)
    assert counting.encoded == MAX_VISIBLE_SETS + 1
    ask(1)
    assert counting.encoded == MAX_VISIBLE_SETS + 2


def test_the_full_list_is_encoded_once_per_revision() -> None:
    counting = CountingLister(page_size=2)
    for _ in range(3):
        every_page(counting.lister, STATELESS)
    assert counting.encoded == 1
