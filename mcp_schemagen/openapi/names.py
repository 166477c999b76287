"""Tool names from operations: valid (A-Z a-z 0-9 _ - .), unique, at most 64 characters.

64 because hosts cut there: OpenAI's function calling refuses longer names, and Claude
Desktop and Cursor prefix a server name to each tool name within a limit of about that
size. A longer name is cut and given 8 hex digits of its full text, so two long names
that share their start stay apart and the same document always gives the same names."""

from __future__ import annotations

import hashlib
import re

MAX_NAME = 64


def raw_name(operation_id: str | None, method: str, path: str) -> str:
    text = operation_id or f"{method.lower()} {path}"  # runs of other characters: one _
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.-")
    return name or f"{method.lower()}_root"


def short(name: str) -> str:
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9].rstrip('_.-')}_{digest}"


def unique(name: str, taken: set[str]) -> str:
    """``name``, or with _2, _3... (shortened to fit) when it is taken (case-insensitive:
    tool files of two names that differ in case collide on some file systems)."""
    candidate, counter = short(name), 2
    while candidate.lower() in taken:
        suffix = f"_{counter}"
        candidate = short(name)[: MAX_NAME - len(suffix)] + suffix
        counter += 1
    taken.add(candidate.lower())
    return candidate
