"""Who made the request: what a handler may know about the access token, never the token.

The authorization layer sets the principal in a context variable before the request is
handed to the server; tasks and worker threads started for the request copy the context,
so the handler's ``get_context().principal`` sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Principal:
    """The validated access token's facts. ``claims`` are the JWT's claims (or the
    introspection answer), for anything else the authorization server puts there."""

    subject: str
    client_id: str | None
    scopes: frozenset[str]
    issuer: str
    claims: Mapping[str, Any] = field(repr=False)

    def has_scopes(self, *needed: str) -> bool:
        return all(scope in self.scopes for scope in needed)


_current: ContextVar[Principal | None] = ContextVar("mcp_codegen_principal", default=None)


def current_principal() -> Principal | None:
    """The principal of the request this code serves; None without authorization."""
    return _current.get()


def enter(principal: Principal | None) -> Any:
    return _current.set(principal)


def leave(token: Any) -> None:
    _current.reset(token)
