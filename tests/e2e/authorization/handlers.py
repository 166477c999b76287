from __future__ import annotations

import os

from .api import get_context
from .types import ContentBlock


def _called(tool: str) -> None:
    # The tests read this file to prove a refused request reached no handler.
    with open(os.environ["AUTH_TEST_CALLS"], "a", encoding="utf-8") as calls:
        calls.write(tool + "\n")


def _describe() -> str:
    principal = get_context().principal
    if principal is None:
        return "anonymous"
    return f"{principal.subject} {principal.client_id} {' '.join(sorted(principal.scopes))}"


# mcp-codegen tool: "whoami"
def whoami() -> str | list[ContentBlock]:
    """Say who the access token belongs to (a plain def handler, run in a worker thread)."""
    _called("whoami")
    return _describe()


# mcp-codegen tool: "whoami_async"
async def whoami_async() -> str | list[ContentBlock]:
    """Say who the access token belongs to (an async handler)."""
    _called("whoami_async")
    return _describe()


# mcp-codegen tool: "read_notes"
def read_notes(*, topic: str | None = None) -> str | list[ContentBlock]:
    """Read the caller's notes; needs the notes:read scope."""
    _called("read_notes")
    return f"notes of {get_context().principal.subject}: {topic}"  # type: ignore[union-attr]
