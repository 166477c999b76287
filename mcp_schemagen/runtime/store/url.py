"""Which store a URL names, opened: the one module that knows every backend, so the
store's interface (store.py) and each backend import in one direction only."""

from __future__ import annotations

from . import MemoryStore, Store


class StoreMissing(RuntimeError):
    """The store a URL names needs a package that is not installed."""


def is_redis_url(url: str | None) -> bool:
    return url is not None and url.startswith(("redis://", "rediss://", "unix://"))


def open_store(url: str | None, *, session_ttl: float = 3600.0, event_ttl: float = 300.0) -> Store:
    """The store a URL names: None/``memory:`` in process, ``redis://``/``rediss://`` Redis."""
    if url is None or url in ("", "memory:", "memory"):
        return MemoryStore(session_ttl=session_ttl, event_ttl=event_ttl)
    if is_redis_url(url):
        try:
            import redis  # noqa: F401  (only where a Redis store is configured)
        except ImportError:
            raise StoreMissing(
                "a redis:// store needs the redis package: install the server's http "
                "extra (pip install 'PACKAGE[http]') or pip install redis"
            ) from None
        from .redis_store import RedisStore  # imported only where Redis is configured

        return RedisStore(url, session_ttl=session_ttl, event_ttl=event_ttl)
    raise ValueError(f"unknown store {url!r}: use memory: or redis://host:port/db")
