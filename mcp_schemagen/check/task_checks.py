"""Checks of what a tool file says about running as a task (runtime/tasks/settings.py):
``execution.taskSupport`` one of the protocol's values, ``x-mcp-codegen-task`` an object
of positive integer ``ttlMs`` and ``pollIntervalMs``, and the second only beside the
first. Each problem names the file and the JSON pointer, and a likely misspelling."""

from __future__ import annotations

import difflib
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.runtime.tasks.settings import (
    ON_LOST_VALUES,
    START_VALUES,
    SUPPORT_VALUES,
    TASK_FIELDS,
    TASK_KEY,
)
from mcp_schemagen.source import Source


def _did_you_mean(value: str, known: tuple[str, ...]) -> str:
    guess = difflib.get_close_matches(value, known, n=1, cutoff=0.5)
    return f"; did you mean {guess[0]!r}?" if guess else ""


def check_task_fields(source: Source) -> list[Diagnostic]:
    definition, file = source.definition, source.file
    problems: list[Diagnostic] = []
    execution = definition.get("execution")
    support: Any = None
    if isinstance(execution, dict) and "taskSupport" in execution:
        support = execution["taskSupport"]
        where = pointer_join(source.pointer, "execution", "taskSupport")
        if support not in SUPPORT_VALUES:
            hint = _did_you_mean(support, SUPPORT_VALUES) if isinstance(support, str) else ""
            problems.append(
                error(
                    file,
                    where,
                    f"execution.taskSupport must be one of {', '.join(map(repr, SUPPORT_VALUES))},"
                    f" not {support!r}{hint}",
                )
            )
    if TASK_KEY not in definition:
        return problems
    extra = definition[TASK_KEY]
    where = pointer_join(source.pointer, TASK_KEY)
    if not isinstance(extra, dict):
        return [
            *problems,
            error(file, where, f"{TASK_KEY} must be an object of {', '.join(TASK_FIELDS)}"),
        ]
    if support in (None, "forbidden"):  # a misspelt value is reported above
        problems.append(
            error(
                file,
                where,
                f"{TASK_KEY} is set but the tool never runs as a task: add"
                ' "execution": {"taskSupport": "optional"} (or "required")',
            )
        )
    for key, value in extra.items():
        at = pointer_join(where, key)
        if key not in TASK_FIELDS:
            hint = _did_you_mean(key, TASK_FIELDS) or f"; it may hold {', '.join(TASK_FIELDS)}"
            problems.append(error(file, at, f"unknown {TASK_KEY} field {key!r}{hint}"))
        elif key in ("start", "onLost"):
            allowed = START_VALUES if key == "start" else ON_LOST_VALUES
            if value not in allowed:
                hint = _did_you_mean(value, allowed) if isinstance(value, str) else ""
                choices = " or ".join(map(repr, allowed))
                problems.append(error(file, at, f"{key} must be {choices}, not {value!r}{hint}"))
        elif type(value) is not int or value <= 0:
            problems.append(
                error(
                    file,
                    at,
                    f"{key} must be a positive whole number of milliseconds, not {value!r}",
                )
            )
    return problems
