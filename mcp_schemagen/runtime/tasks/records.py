"""A task's record in the store (store/tasks.py) and its shapes on the wire.

The tasks extension (SEP-2663, ``io.modelcontextprotocol/tasks``) shows a task flat:
``CreateTaskResult`` (``resultType: "task"``) is ``Result & Task``; ``tasks/get`` answers a
``DetailedTask`` (``resultType: "complete"``) that adds what the status carries:
``inputRequests`` (input_required), ``result`` (completed), ``error`` (failed).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from ..store.tasks import TERMINAL

EXTENSION = "io.modelcontextprotocol/tasks"
# The JSON-RPC error a task ends with when the worker running it stopped (its lease ran
# out): its effects, if any, are unknown.
LOST_CODE = -32603
LOST_MESSAGE = (
    "The task was lost: the server process running it stopped before it finished. "
    "Its effects, if any, are unknown; call the tool again if that is safe."
)


def timestamp() -> str:
    """ISO 8601 in UTC, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_task_id() -> str:
    """Unguessable (128 bits): a task id is all a client shows to reach its task."""
    return secrets.token_urlsafe(16)


def new_record(
    task_id: str,
    owner: str,
    tool: str,
    ttl_ms: int,
    poll_interval_ms: int,
    lease: int,
    arguments: Any = None,
    session: str = "",
) -> dict[str, str]:
    """``arguments`` (None: not kept) for a task run again if its worker dies; ``session``
    the session it is bound to ("": none, kept out of the record)."""
    created = timestamp()
    core = {
        "taskId": task_id,
        "createdAt": created,
        "ttlMs": ttl_ms,
        "pollIntervalMs": poll_interval_ms,
        "owner": owner,
        "tool": tool,
    }
    if arguments is not None:
        core["arguments"] = arguments
    if session:
        core["session"] = session
    return {
        "core": orjson.dumps(core).decode(),
        "status": "working",
        "lastUpdatedAt": created,
        "lease": str(lease),
    }


def core_of(record: Mapping[str, str]) -> dict[str, Any]:
    core: dict[str, Any] = orjson.loads(record["core"])
    return core


def task_of(record: Mapping[str, str]) -> dict[str, Any]:
    """The ``Task`` every shape shares."""
    core = core_of(record)
    task: dict[str, Any] = {"taskId": core["taskId"], "status": record["status"]}
    if record.get("statusMessage"):  # "" once cleared
        task["statusMessage"] = record["statusMessage"]
    task["createdAt"] = core["createdAt"]
    task["lastUpdatedAt"] = record["lastUpdatedAt"]
    task["ttlMs"] = core["ttlMs"]
    task["pollIntervalMs"] = core["pollIntervalMs"]
    return task


def create_result(record: Mapping[str, str], stamp: Mapping[str, Any]) -> dict[str, Any]:
    """``CreateTaskResult``: the task's seed state, nothing of its outcome."""
    return {"resultType": "task", **task_of(record), "_meta": stamp}


def detailed(record: Mapping[str, str], stamp: Mapping[str, Any]) -> dict[str, Any]:
    """``tasks/get``'s ``DetailedTask`` for the task's status now."""
    body: dict[str, Any] = {"resultType": "complete", **task_of(record)}
    status = record["status"]
    if status == "input_required":
        body["inputRequests"] = {
            key[2:]: orjson.loads(value) for key, value in record.items() if key.startswith("q:")
        }
    elif status == "completed":
        body["result"] = orjson.loads(record["result"])
    elif status == "failed":
        body["error"] = orjson.loads(record["error"])
    body["_meta"] = stamp
    return body


def finished(status: str, message: str | None, **outcome: Any) -> dict[str, str]:
    """The fields that end a task: its status, a message, its result or error."""
    # No message: "" clears one an earlier state left (a record's fields are only set).
    fields = {"status": status, "lastUpdatedAt": timestamp(), "statusMessage": message or ""}
    for name, value in outcome.items():
        fields[name] = orjson.dumps(value).decode()
    return fields


def lost() -> dict[str, str]:
    error = {"code": LOST_CODE, "message": LOST_MESSAGE}
    return finished("failed", LOST_MESSAGE, error=error)


def is_finished(record: Mapping[str, str]) -> bool:
    return record.get("status") in TERMINAL
