"""The task store that goes with a transport's store: Redis tasks beside Redis sessions
(every worker sees every task), memory tasks beside memory sessions (one process)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..store import Store
from ..store.tasks import MemoryTaskStore, TaskStore

if TYPE_CHECKING:
    from .runner import TaskRunner


def task_store_for(store: Store) -> TaskStore:
    from ..store.redis_store import RedisStore  # imports redis: only when configured

    if isinstance(store, RedisStore):
        from ..store.redis_tasks import RedisTaskStore

        return RedisTaskStore(store)
    return MemoryTaskStore()


def attach(tasks: TaskRunner, store: Store, engine: str | None) -> None:
    """Give ``tasks`` the task store beside ``store`` and, with ``--task-engine``, the
    engine its tasks are handed to (imported only then: taskiq stays unloaded)."""
    on_status = tasks.store.on_status  # status notifications (server.py) go on
    tasks.store = task_store_for(store)
    tasks.store.on_status = on_status
    if engine:
        from .engine import engine_for

        tasks.engine = engine_for(engine, store, tasks.store)
