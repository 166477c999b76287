"""What a prompt handler returns: text (one user message), a list of messages, or a
``PromptResult`` with a description; ``user(...)`` and ``assistant(...)`` make messages
from text or a content block (text, image, audio, an embedded resource, a resource link).

A content block the client's revision does not define in prompt messages (audio before
2025-03-26, a resource link before 2025-06-18) is refused when the prompt is got, with an
error naming the block and the revision, rather than sent in a form the client rejects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, TypedDict

from .content import ContentBlock, text


class PromptMessage(TypedDict):
    role: Literal["user", "assistant"]
    content: ContentBlock


def user(content: str | ContentBlock) -> PromptMessage:
    """A message from the user: text, or one content block."""
    return {"role": "user", "content": text(content) if isinstance(content, str) else content}


def assistant(content: str | ContentBlock) -> PromptMessage:
    """A message from the assistant: text, or one content block."""
    block = text(content) if isinstance(content, str) else content
    return {"role": "assistant", "content": block}


@dataclass(frozen=True, slots=True)
class PromptResult:
    """The messages of a prompt, with a description of this rendering of it (optional)."""

    messages: Sequence[PromptMessage | str] = field(default_factory=tuple)
    description: str | None = None


# Everything a prompt handler may return (a str is one user text message).
PromptReturn: TypeAlias = str | Sequence[PromptMessage | str] | PromptResult
