"""The errors asking the client can end in. Apart from questions.py, whose dataclasses
cost milliseconds to create: the call lifecycle catches these on every server, while
the questions load only when a handler asks one."""

from __future__ import annotations

from typing import Any

from ..jsonrpc import RpcError
from ..protocol import MISSING_REQUIRED_CLIENT_CAPABILITY
from ..result import ToolError


class InteractionError(ToolError):
    """Asking the client failed; uncaught, the call ends in a tool error with this text."""


class ClientCapabilityMissing(InteractionError):
    """The client did not declare the capability a request needs, so it was not asked."""

    def __init__(self, required: dict[str, Any], what: str) -> None:
        super().__init__(f"The client does not support {what}: it did not declare the capability")
        self.required = required  # e.g. {"elicitation": {"url": {}}}

    def rpc_error(self) -> RpcError:
        return RpcError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            str(self),
            {"requiredCapabilities": self.required},
        )


class ClientError(InteractionError):
    """The client answered with a JSON-RPC error (its message is this exception's)."""

    def __init__(self, code: Any, message: str, data: Any = None) -> None:
        super().__init__(f"The client refused the request: {message}")
        self.code = code
        self.client_message = message
        self.data = data


class ClientTimeout(InteractionError):
    """The client did not answer in time (it was told to stop with notifications/cancelled)."""


class InvalidAnswer(InteractionError):
    """The client's answer does not have the shape the protocol defines."""
