"""Where durable tasks live (the tasks extension, runtime/tasks/): one record per task,
readable and changeable by every worker that shares the store.

A record is a flat map of strings, the shape of a Redis hash, so each change is one
atomic step in Redis (a short Lua script) and the same step under a lock-free event loop
in memory:

- ``core``: the facts fixed at creation (JSON: taskId, createdAt, ttlMs, pollIntervalMs,
  owner, tool), written once;
- ``status``, ``statusMessage``, ``lastUpdatedAt``: where the task is now;
- ``result`` or ``error``: the final JSON-RPC result or error, as JSON text;
- ``q:KEY``: a question the handler is waiting on (its inputRequest, JSON text);
  ``a:KEY``: the client's answer to it, moved there by ``answer``;
- ``cancel``: "1" once a client asked to cancel;
- ``lease``: until when (ms since the epoch) the worker running it vouches for it; a
  reader that finds a task not finished and its lease run out ends it as lost.

A finished task (completed, failed, cancelled) never changes again: every write but the
first that finishes it is refused. Records expire with their TTL.

A task created in a session (2025-11-25) is also indexed under that session's key, in
creation order, for ``tasks/list``; the index lives as long as its longest-lived task, and
ids whose record expired are skipped when it is read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

TERMINAL = frozenset({"completed", "failed", "cancelled"})


def now_ms() -> int:
    return int(time.time() * 1000)


class TaskStore:
    """The operations tasks need; ``MemoryTaskStore`` for one process,
    ``RedisTaskStore`` (store/redis_tasks.py) for every worker on one Redis.

    ``on_status`` (set by the server) hears the id of every task whose status a write
    may have changed, so status notifications go out whoever wrote it (any write site,
    any worker, a task worker of an engine)."""

    on_status: Callable[[str], object] | None = None

    def changed(self, task_id: str) -> None:
        if self.on_status is not None:
            self.on_status(task_id)

    async def create(
        self, task_id: str, fields: dict[str, str], ttl_ms: int, session: str = ""
    ) -> None:
        """Store a new record; ``session`` (not ""): index it under that session too."""
        raise NotImplementedError

    async def of_session(self, session: str) -> list[str]:
        """The ids of the tasks created in ``session``, oldest first (some maybe expired)."""
        raise NotImplementedError

    async def create_within(
        self, task_id: str, fields: dict[str, str], ttl_ms: int, owner: str, cap: int
    ) -> bool:
        """Create the task unless ``owner`` has ``cap`` tasks already that are neither
        finished nor lost (their lease run out), counted across every worker on this
        store (False then): the bound on one principal's tasks that run elsewhere."""
        raise NotImplementedError

    async def read(self, task_id: str) -> dict[str, str] | None:
        raise NotImplementedError

    async def write(self, task_id: str, fields: dict[str, str], *, clear_questions: bool) -> bool:
        """Set ``fields`` unless the task is finished (False then, or when it is gone);
        ``clear_questions`` drops every outstanding ``q:`` question first."""
        raise NotImplementedError

    async def answer(self, task_id: str, answers: dict[str, str], updated_at: str) -> None:
        """Move each answer whose question is outstanding to ``a:KEY`` (others are
        ignored, as the extension asks); with none left open the task works again."""
        raise NotImplementedError

    async def request_cancel(self, task_id: str) -> None:
        raise NotImplementedError

    async def end_if_lost(self, task_id: str, fields: dict[str, str], now: int) -> bool:
        """Finish a task with ``fields`` if it is not finished and its lease ran out."""
        raise NotImplementedError


class MemoryTaskStore(TaskStore):
    """This process's tasks; expired ones are dropped when next touched or swept."""

    def __init__(self) -> None:
        self._records: dict[str, dict[str, str]] = {}
        self._expires: dict[str, float] = {}
        self._sessions: dict[str, list[str]] = {}  # session key -> its task ids, in order
        self._held: dict[str, set[str]] = {}  # create_within's tasks, by owner

    def _live(self, task_id: str) -> dict[str, str] | None:
        record = self._records.get(task_id)
        if record is not None and self._expires[task_id] <= time.monotonic():
            self._sweep()
            return None
        return record

    def _sweep(self) -> None:
        now = time.monotonic()
        for task_id in [t for t, at in self._expires.items() if at <= now]:
            del self._records[task_id], self._expires[task_id]
        for session, ids in list(self._sessions.items()):
            kept = [t for t in ids if t in self._records]
            if kept:
                self._sessions[session] = kept
            else:
                del self._sessions[session]

    def __len__(self) -> int:
        return len(self._records)

    async def create(
        self, task_id: str, fields: dict[str, str], ttl_ms: int, session: str = ""
    ) -> None:
        if len(self._records) % 256 == 0:
            self._sweep()
        self._records[task_id] = dict(fields)
        self._expires[task_id] = time.monotonic() + ttl_ms / 1000
        if session:
            self._sessions.setdefault(session, []).append(task_id)

    async def of_session(self, session: str) -> list[str]:
        return [t for t in self._sessions.get(session, ()) if self._live(t) is not None]

    async def create_within(
        self, task_id: str, fields: dict[str, str], ttl_ms: int, owner: str, cap: int
    ) -> bool:
        held = self._held.setdefault(owner, set())
        now = now_ms()
        for other in list(held):
            record = self._live(other)
            if record is None or record.get("status") in TERMINAL:
                held.discard(other)
        active = sum(int(self._records[other].get("lease", "0")) >= now for other in held)
        if active >= cap:
            return False
        await self.create(task_id, fields, ttl_ms)
        held.add(task_id)
        return True

    async def read(self, task_id: str) -> dict[str, str] | None:
        record = self._live(task_id)
        return None if record is None else dict(record)

    async def write(self, task_id: str, fields: dict[str, str], *, clear_questions: bool) -> bool:
        record = self._live(task_id)
        if record is None or record.get("status") in TERMINAL:
            return False
        if clear_questions:
            for key in [k for k in record if k.startswith("q:")]:
                del record[key]
        record.update(fields)
        if "status" in fields:
            self.changed(task_id)
        return True

    async def answer(self, task_id: str, answers: dict[str, str], updated_at: str) -> None:
        record = self._live(task_id)
        if record is None or record.get("status") in TERMINAL:
            return
        for key, value in answers.items():
            if record.pop("q:" + key, None) is not None:
                record["a:" + key] = value
        if record.get("status") == "input_required" and not any(k.startswith("q:") for k in record):
            record["status"] = "working"
            record.pop("statusMessage", None)
            record["lastUpdatedAt"] = updated_at
            self.changed(task_id)

    async def request_cancel(self, task_id: str) -> None:
        record = self._live(task_id)
        if record is not None and record.get("status") not in TERMINAL:
            record["cancel"] = "1"

    async def end_if_lost(self, task_id: str, fields: dict[str, str], now: int) -> bool:
        record = self._live(task_id)
        if record is None or record.get("status") in TERMINAL:
            return False
        if int(record.get("lease", "0")) >= now:
            return False
        return await self.write(task_id, fields, clear_questions=True)


def record_size(record: dict[str, Any]) -> int:
    """Bytes of a record's keys and values (what a task costs the store, roughly)."""
    return sum(len(k) + len(str(v)) for k, v in record.items())
