"""The ``requestState`` of a 2026-07-28 ``input_required`` result, sealed.

A 2026-07-28 server keeps nothing between requests: a handler that asks the client ends
its call with the questions, and the client retries the call with the answers. The
handler then runs again from its start, and each question it asked before gets its
earlier answer straight away; those earlier answers travel in ``requestState``.

The state is bound to the tool and its arguments, expires, and carries an HMAC-SHA256
tag under a key every worker shares (``MCP_CODEGEN_STATE_KEY``), so a retry can land on
any worker and a forged, altered, replayed-elsewhere or stale state is refused with
-32602. It holds only what the client itself answered, never handler data. With a
``StateStore`` the answers stay on the server side and the state carries only a random
key into the store (an in-memory store here; a shared store such as Redis implements the
same two methods for several workers).
"""

from __future__ import annotations

import base64
import binascii
import os
import time
from typing import Any, Protocol

import orjson

from ..jsonrpc import RpcError
from ..protocol import INVALID_PARAMS

KEY_VARIABLE = "MCP_CODEGEN_STATE_KEY"
DEFAULT_TTL_SECONDS = 600.0
_VERSION = "v1"


class StateStore(Protocol):
    """Where pending answers live when the state itself should carry only a key."""

    async def put(self, key: str, value: bytes, ttl: float) -> None: ...

    async def get(self, key: str) -> bytes | None:
        """The value, or None when it never existed or has expired."""
        ...


class MemoryStateStore:
    """A StateStore in this process's memory (one worker, or tests)."""

    def __init__(self) -> None:
        self._values: dict[str, tuple[float, bytes]] = {}

    async def put(self, key: str, value: bytes, ttl: float) -> None:
        now = time.monotonic()
        self._values = {k: v for k, v in self._values.items() if v[0] > now}  # drop stale
        self._values[key] = (now + ttl, value)

    async def get(self, key: str) -> bytes | None:
        found = self._values.get(key)
        if found is None or found[0] <= time.monotonic():
            return None
        return found[1]


class StateRejected(RpcError):
    """A requestState that fails verification: -32602, with the reason and the fix."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            INVALID_PARAMS,
            f"Invalid or expired requestState ({reason}); retry the call without"
            " requestState and inputResponses to start over",
        )


class RequestStateSeal:
    """Seals the answers of earlier rounds into a requestState, and opens it again."""

    def __init__(
        self,
        key: bytes,
        *,
        ttl: float = DEFAULT_TTL_SECONDS,
        store: StateStore | None = None,
    ) -> None:
        if len(key) < 16:
            raise ValueError("the requestState key needs at least 16 bytes")
        self._key = key
        self.ttl = ttl
        self.store = store

    @classmethod
    def from_environment(cls, store: StateStore | None = None) -> RequestStateSeal:
        """The key shared by every worker from ``MCP_CODEGEN_STATE_KEY``; without it a key
        of this process only (one worker: stdio, or a single HTTP process)."""
        shared = os.environ.get(KEY_VARIABLE)
        key = shared.encode() if shared else os.urandom(32)  # as secrets.token_bytes
        return cls(key, store=store)

    async def seal(self, binding: str, answers: dict[str, Any]) -> str:
        body: dict[str, Any] = {"b": binding, "exp": int(time.time() + self.ttl)}
        if self.store is None:
            body["a"] = answers
        else:
            import secrets

            body["s"] = secrets.token_urlsafe(18)
            await self.store.put(body["s"], orjson.dumps(answers), self.ttl)
        signed = _VERSION + "." + _b64(orjson.dumps(body))
        return signed + "." + _b64(self._mac(signed))

    async def open(self, token: Any, binding: str) -> dict[str, Any]:
        """The answers sealed in ``token``; ``StateRejected`` unless it is one this server
        (or a worker sharing its key) minted for this very call, and it has not expired."""
        if type(token) is not str:
            raise StateRejected("not a string")
        version, _, rest = token.partition(".")
        encoded, _, tag = rest.partition(".")
        if version != _VERSION or not encoded or not tag:
            raise StateRejected("malformed")
        import hmac

        try:
            valid = hmac.compare_digest(_unb64(tag), self._mac(version + "." + encoded))
            body = orjson.loads(_unb64(encoded)) if valid else None
        except (ValueError, binascii.Error, orjson.JSONDecodeError):
            raise StateRejected("malformed") from None
        if not valid or type(body) is not dict:
            raise StateRejected("integrity check failed")
        if body.get("b") != binding:
            raise StateRejected("issued for another call")
        expires = body.get("exp")
        if type(expires) is not int or expires < time.time():
            raise StateRejected("expired")
        answers = body.get("a")
        if "s" in body:
            answers = await self._stored(body["s"])
        if type(answers) is not dict:
            raise StateRejected("malformed")
        return answers

    async def _stored(self, key: Any) -> Any:
        if self.store is None or type(key) is not str:
            raise StateRejected("issued by a server with a state store")
        value = await self.store.get(key)
        if value is None:
            raise StateRejected("expired")
        return orjson.loads(value)

    def _mac(self, signed: str) -> bytes:
        import hashlib
        import hmac

        return hmac.new(self._key, signed.encode("ascii"), hashlib.sha256).digest()


def call_binding(tool: str, arguments: Any) -> str:
    """What a state is bound to: the tool and a digest of its arguments."""
    import hashlib

    digest = hashlib.sha256(orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"tools/call {tool} {digest}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
