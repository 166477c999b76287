"""Durable tasks in Redis: every worker on one Redis reads and changes every task.

Each record is a hash at ``PREFIX + "task:" + ID`` with the record's TTL; each change
that depends on what is there (finished tasks never change; answers only for questions
still open; a lost task ended only once) is one Lua script, so two workers racing see one
order. The hash layout is store/tasks.py's.
"""

from __future__ import annotations

import hashlib
from typing import Any

from . import StoreUnavailable
from .redis_store import RedisStore
from .tasks import TaskStore, now_ms

_TERMINAL_TEST = "local s = redis.call('HGET', KEYS[1], 'status') "
_FINISHED = (
    "if s == false or s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end "
)
_CLEAR_QUESTIONS = (
    "for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do "
    "if string.sub(f, 1, 2) == 'q:' then redis.call('HDEL', KEYS[1], f) end end "
)

# ARGV: clear ("1"/"0"), then field, value pairs.
_WRITE = (
    _TERMINAL_TEST + _FINISHED + "if ARGV[1] == '1' then " + _CLEAR_QUESTIONS + "end "
    "for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end return 1"
)
# ARGV: updatedAt, then key, answer pairs.
_ANSWER = (
    _TERMINAL_TEST + _FINISHED + "for i = 2, #ARGV, 2 do "
    "if redis.call('HDEL', KEYS[1], 'q:' .. ARGV[i]) == 1 then "
    "redis.call('HSET', KEYS[1], 'a:' .. ARGV[i], ARGV[i + 1]) end end "
    "if s == 'input_required' then "
    "for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do "
    "if string.sub(f, 1, 2) == 'q:' then return 1 end end "
    "redis.call('HSET', KEYS[1], 'status', 'working', 'lastUpdatedAt', ARGV[1]) "
    "redis.call('HDEL', KEYS[1], 'statusMessage') end return 1"
)
_CANCEL = _TERMINAL_TEST + _FINISHED + "redis.call('HSET', KEYS[1], 'cancel', '1') return 1"
# ARGV: now (ms), then field, value pairs.
_END_IF_LOST = (
    _TERMINAL_TEST
    + _FINISHED
    + "if tonumber(redis.call('HGET', KEYS[1], 'lease') or '0') >= tonumber(ARGV[1]) then "
    "return 0 end "
    + _CLEAR_QUESTIONS
    + "for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end return 1"
)

# KEYS: the new task's hash, its owner's set of tasks (ids scored by creation).
# ARGV: cap, ttl (ms), now (ms), the tasks' key prefix, the task id, then field, value
# pairs. An owner's task stops counting once finished or gone (then dropped from the set)
# or lost (its lease run out: kept, since a rerun may bring it back).
_CREATE_WITHIN = (
    "local active = 0 "
    "for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do "
    "local k = ARGV[4] .. id "
    "local s = redis.call('HGET', k, 'status') "
    "if s == false or s == 'completed' or s == 'failed' or s == 'cancelled' then "
    "redis.call('ZREM', KEYS[2], id) "
    "elseif tonumber(redis.call('HGET', k, 'lease') or '0') >= tonumber(ARGV[3]) then "
    "active = active + 1 end end "
    "if active >= tonumber(ARGV[1]) then return 0 end "
    "for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end "
    "redis.call('PEXPIRE', KEYS[1], ARGV[2]) "
    "redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5]) "
    "if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then "
    "redis.call('PEXPIRE', KEYS[2], ARGV[2]) end return 1"
)


# The session's index of task ids (a sorted set by creation time), kept as long as its
# longest-lived task. KEYS: the index; ARGV: score, id, ttl (ms).
_INDEX = (
    "redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2]) "
    "if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then "
    "redis.call('PEXPIRE', KEYS[1], ARGV[3]) end return 1"
)


class RedisTaskStore(TaskStore):
    """Tasks in the Redis of ``store`` (its connection pool and key prefix)."""

    def __init__(self, store: RedisStore) -> None:
        self._store = store
        self._redis: Any = store._redis  # one pool for sessions and tasks
        self._prefix = store.prefix + "task:"
        self._scripts = {
            name: self._redis.register_script(text)
            for name, text in (
                ("write", _WRITE),
                ("answer", _ANSWER),
                ("cancel", _CANCEL),
                ("lost", _END_IF_LOST),
                ("index", _INDEX),
                ("create_within", _CREATE_WITHIN),
            )
        }

    def _key(self, task_id: str) -> str:
        return self._prefix + task_id

    async def _run(self, script: str, task_id: str, args: list[str]) -> bool:
        with self._store._unavailable():
            return bool(await self._scripts[script](keys=[self._key(task_id)], args=args))

    async def create(
        self, task_id: str, fields: dict[str, str], ttl_ms: int, session: str = ""
    ) -> None:
        with self._store._unavailable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(self._key(task_id), mapping=fields)
                pipe.pexpire(self._key(task_id), ttl_ms)
                await pipe.execute()
            if session:
                index = [self._session_key(session)]
                args = [str(now_ms()), task_id, str(ttl_ms)]
                await self._scripts["index"](keys=index, args=args)

    def _session_key(self, session: str) -> str:
        return self._store.prefix + "tasks-of:" + session

    async def of_session(self, session: str) -> list[str]:
        with self._store._unavailable():
            ids = await self._redis.zrange(self._session_key(session), 0, -1)
            if not ids:
                return []
            async with self._redis.pipeline(transaction=False) as pipe:
                for task_id in ids:
                    pipe.exists(self._key(_text(task_id)))
                alive = await pipe.execute()
        return [_text(t) for t, there in zip(ids, alive, strict=True) if there]

    async def create_within(
        self, task_id: str, fields: dict[str, str], ttl_ms: int, owner: str, cap: int
    ) -> bool:
        # The owner's set is named by a digest: an owner (issuer and subject) may hold
        # any characters, a key had better not.
        held = self._store.prefix + "task-owner:" + hashlib.sha256(owner.encode()).hexdigest()
        args = [str(cap), str(ttl_ms), str(now_ms()), self._prefix, task_id, *_pairs(fields)]
        with self._store._unavailable():
            script = self._scripts["create_within"]
            return bool(await script(keys=[self._key(task_id), held], args=args))

    async def read(self, task_id: str) -> dict[str, str] | None:
        with self._store._unavailable():
            raw = await self._redis.hgetall(self._key(task_id))
        if not raw:
            return None
        return {_text(k): _text(v) for k, v in raw.items()}

    async def write(self, task_id: str, fields: dict[str, str], *, clear_questions: bool) -> bool:
        args = ["1" if clear_questions else "0", *_pairs(fields)]
        written = await self._run("write", task_id, args)
        if written and "status" in fields:
            self.changed(task_id)
        return written

    async def answer(self, task_id: str, answers: dict[str, str], updated_at: str) -> None:
        if await self._run("answer", task_id, [updated_at, *_pairs(answers)]):
            self.changed(task_id)  # maybe working again: a listener reads what it is now

    async def request_cancel(self, task_id: str) -> None:
        await self._run("cancel", task_id, [])

    async def end_if_lost(self, task_id: str, fields: dict[str, str], now: int) -> bool:
        ended = await self._run("lost", task_id, [str(now), *_pairs(fields)])
        if ended:
            self.changed(task_id)
        return ended


def _pairs(fields: dict[str, str]) -> list[str]:
    return [item for pair in fields.items() for item in pair]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


__all__ = ["RedisTaskStore", "StoreUnavailable"]
