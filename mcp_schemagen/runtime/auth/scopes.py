"""Which scopes a request needs: the project-wide ones plus, for ``tools/call``, those the
called tool declares in its definition's ``_meta`` under ``SCOPES_KEY``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

SCOPES_KEY = "io.mcp-codegen/scopes"


def declared_scopes(definition: Mapping[str, Any]) -> tuple[str, ...]:
    """The scopes a tool definition declares (the build checked their syntax)."""
    meta = definition.get("_meta")
    if not isinstance(meta, Mapping):
        return ()
    scopes = meta.get(SCOPES_KEY)
    if not isinstance(scopes, list):
        return ()
    return tuple(s for s in scopes if isinstance(s, str))


class ScopePolicy:
    def __init__(self, base: Iterable[str], tools: Mapping[str, Iterable[str]]) -> None:
        self.base = tuple(dict.fromkeys(base))
        self.tools = {name: tuple(scopes) for name, scopes in tools.items()}

    @classmethod
    def of_tools(cls, base: Iterable[str], published: Iterable[tuple[str, Any]]) -> ScopePolicy:
        """From (name, {revision: published definition}) pairs: a revision that publishes
        ``_meta`` carries the declaration."""
        tools: dict[str, tuple[str, ...]] = {}
        for name, forms in published:
            for form in forms.values():
                found = declared_scopes(form)
                if found:
                    tools[name] = found
                    break
        return cls(base, tools)

    def needed(self, message: Any) -> tuple[str, ...]:
        """The scopes ``message`` (one JSON-RPC message or a batch) needs, in a stable
        order: the base scopes first, then each called tool's."""
        needed = list(self.base)
        for one in message if type(message) is list else [message]:
            if type(one) is not dict or one.get("method") != "tools/call":
                continue
            params = one.get("params")
            name = params.get("name") if type(params) is dict else None
            if type(name) is str:
                needed += self.tools.get(name, ())
        return tuple(dict.fromkeys(needed))

    def supported(self) -> list[str]:
        every = list(self.base)
        for scopes in self.tools.values():
            every += scopes
        return list(dict.fromkeys(every))
