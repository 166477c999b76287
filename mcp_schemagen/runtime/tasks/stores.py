"""The task store that goes with a transport's store: Redis tasks beside Redis sessions
(every worker sees every task), memory tasks beside memory sessions (one process)."""

from __future__ import annotations

from ..store import Store
from ..store.tasks import MemoryTaskStore, TaskStore


def task_store_for(store: Store) -> TaskStore:
    from ..store.redis_store import RedisStore  # imports redis: only when configured

    if isinstance(store, RedisStore):
        from ..store.redis_tasks import RedisTaskStore

        return RedisTaskStore(store)
    return MemoryTaskStore()
