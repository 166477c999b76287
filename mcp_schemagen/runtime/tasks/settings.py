"""What a tool's file says about running it as a task (the tasks extension).

Whether a tool may or must run as a task is the protocol's own field, ``execution.
taskSupport`` (``"forbidden"``, the default, ``"optional"`` or ``"required"``): 2025-11-25
publishes it on the Tool; 2026-07-28 removed it from the Tool, the server alone deciding
per request (SEP-2663), so there it is never published and only decides what the server
does. What no revision expresses sits beside it, never published:

    "x-mcp-codegen-task": {"ttlMs": 3600000, "pollIntervalMs": 1000}

``ttlMs``: how long a task's record (and its result) is kept from its creation;
``pollIntervalMs``: how often clients are asked to poll; ``start``: ``"call"`` (the
default: the task begins with the call) or ``"handler"`` (the handler runs in the call's
own rounds, asking there, until it calls ``await get_context().start_task()``; if it
returns first, its result answers the call); ``onLost``: ``"fail"`` (the default: a task
whose worker died ends ``failed``) or ``"rerun"`` (safe to run again: the first worker
that finds it lost runs it again from its arguments, up to three attempts in all; the
arguments are then kept in the task's record). The build checks them
(check/task_checks.py); this module reads them at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Every revision's task methods (Revision.task_methods says which a revision serves).
ALL_TASK_METHODS = frozenset(
    {"tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list"}
)
SUPPORT_VALUES = ("forbidden", "optional", "required")
TASK_KEY = "x-mcp-codegen-task"
TASK_FIELDS = ("ttlMs", "pollIntervalMs", "start", "onLost")
START_VALUES = ("call", "handler")
ON_LOST_VALUES = ("fail", "rerun")
DEFAULT_TTL_MS = 3_600_000  # an hour: time to come back for a report
DEFAULT_POLL_INTERVAL_MS = 1_000


@dataclass(frozen=True, slots=True)
class TaskSettings:
    """How a task-capable tool's tasks run: ``required`` (False: optional)."""

    required: bool
    ttl_ms: int = DEFAULT_TTL_MS
    poll_interval_ms: int = DEFAULT_POLL_INTERVAL_MS
    started_by_handler: bool = False
    rerun_if_lost: bool = False


def task_settings(definition: Mapping[str, Any]) -> TaskSettings | None:
    """The tool's task settings; None for a tool that never runs as a task."""
    execution = definition.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, Mapping) else None
    if support not in ("optional", "required"):
        return None
    extra = definition.get(TASK_KEY)
    extra = extra if isinstance(extra, Mapping) else {}
    return TaskSettings(
        required=support == "required",
        ttl_ms=_positive(extra.get("ttlMs"), DEFAULT_TTL_MS),
        poll_interval_ms=_positive(extra.get("pollIntervalMs"), DEFAULT_POLL_INTERVAL_MS),
        started_by_handler=extra.get("start") == "handler",
        rerun_if_lost=extra.get("onLost") == "rerun",
    )


def _positive(value: Any, default: int) -> int:
    return value if type(value) is int and value > 0 else default
