"""An explicit tool result, and the error a handler raises to report a failure.

A handler usually returns its structured output (tools with an outputSchema), or text,
a content block, a list of them, or data (sent as JSON text): ``ToolReturn`` says so to
the type checker, and is the return annotation of a generated stub. It returns
``ToolResult`` to send both content blocks and structured output, or to report a failure
the model should see (``is_error=True``) without raising. Raising ``ToolError`` does the same for a plain
message: the client gets an ``isError`` result with that text, and the server logs no
traceback, since the failure was expected (any other exception is logged as a bug).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeAlias

from .content import ContentBlock
from .jsonrpc import RpcError


class _Unset:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


@dataclass(frozen=True, slots=True)
class ToolResult:
    content: Sequence[ContentBlock | str] = field(default_factory=tuple)
    structured: Any = UNSET  # the structuredContent; UNSET leaves it out
    is_error: bool = False


class DataclassInstance(Protocol):
    """Any dataclass instance (the server sends its fields as JSON data)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


class ModelInstance(Protocol):
    """A pydantic-style model (the server sends its ``model_dump(mode="json")``)."""

    def model_dump(
        self, *, mode: str = ..., by_alias: bool = ..., exclude_unset: bool = ...
    ) -> Any: ...


# What a handler of a tool without an outputSchema may return (see the README's table of
# results): text, a content block, a list of them, data sent as JSON text (an object that
# is no content block, a number, a dataclass or a model), None for no content, or a
# ToolResult. A tool with an outputSchema returns its output type or a ToolResult.
ToolReturn: TypeAlias = (
    str
    | ContentBlock
    | Sequence[str | ContentBlock]
    | ToolResult
    | Mapping[str, Any]
    | float
    | DataclassInstance
    | ModelInstance
    | None
)


class ToolError(Exception):
    """A failure the model should read (an ``isError`` result with this message)."""


class ProtocolError(RpcError):
    """Fail the call with a JSON-RPC error of the handler's choosing instead of an
    ``isError`` result, e.g. ``ProtocolError(-32021, "Missing required client
    capability", {"requiredCapabilities": {"sampling": {}}})``."""
