"""A client in process for the protocol core: fixtures for the fake package, a ``Peer``
that speaks one revision through ``Server.handle_message``, and small builders."""

from __future__ import annotations

import asyncio
import functools
import importlib
import itertools
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

import orjson
import pytest

from tests.support.runtime_fixture import PACKAGE, REVISIONS, build_package, import_package

STATELESS = "2026-07-28"


def run(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return wrapper


@pytest.fixture(scope="module")
def dispatch(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return import_package(build_package(tmp_path_factory.mktemp("core")))


@pytest.fixture(scope="module")
def runtime(dispatch: ModuleType) -> Any:
    """The runtime modules as the fake package imports them."""

    class Runtime:
        server = importlib_module(f"{PACKAGE}._runtime.server")
        registry = importlib_module(f"{PACKAGE}._runtime.registry")
        result = importlib_module(f"{PACKAGE}._runtime.result")
        context = importlib_module(f"{PACKAGE}._runtime.context")
        conversion = importlib_module(f"{PACKAGE}._runtime.core.conversion")
        protocol = importlib_module(f"{PACKAGE}._runtime.protocol")
        stdio = importlib_module(f"{PACKAGE}._runtime.stdio")
        shorten = importlib_module(f"{PACKAGE}._runtime.shorten")
        workers = importlib_module(f"{PACKAGE}._runtime.workers")
        validation = importlib_module(f"{PACKAGE}._runtime.validation")

    return Runtime


def importlib_module(name: str) -> ModuleType:
    return importlib.import_module(name)


def meta(revision: str = STATELESS, **extra: Any) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": revision,
        "io.modelcontextprotocol/clientCapabilities": {},
        **extra,
    }


class Peer:
    """A client in process: builds requests in its revision's form, decodes replies."""

    def __init__(self, server: Any, revision: str | None) -> None:
        self.server = server
        self.revision = revision
        self.sent: list[dict[str, Any]] = []
        self.session = server.session(lambda data: self.sent.append(orjson.loads(data)))
        self.ids = itertools.count(1)

    @classmethod
    async def open(cls, server: Any, revision: str | None) -> Peer:
        peer = cls(server, revision)
        if revision is not None and revision != STATELESS:
            reply = await peer.request(
                "initialize", {"protocolVersion": revision, "capabilities": {}}, stamp=False
            )
            assert reply["result"]["protocolVersion"] == revision
            await peer.raw({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return peer

    async def raw(self, message: Any) -> Any:
        data = message if isinstance(message, bytes) else orjson.dumps(message)
        reply = await self.server.handle_message(data, self.session)
        return None if reply is None else orjson.loads(reply)

    def message(
        self, method: str, params: dict[str, Any] | None = None, *, stamp: bool = True, **m: Any
    ) -> dict[str, Any]:
        params = dict(params or {})
        if stamp and self.revision == STATELESS:
            params["_meta"] = {**meta(), **m, **params.get("_meta", {})}
        elif m:
            params["_meta"] = {**m, **params.get("_meta", {})}
        return {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, stamp: bool = True, **m: Any
    ) -> dict[str, Any]:
        reply: dict[str, Any] = await self.raw(self.message(method, params, stamp=stamp, **m))
        return reply

    async def call(self, name: str, arguments: Any = None, **m: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self.request("tools/call", params, **m)


def text(reply: dict[str, Any]) -> str:
    return "".join(b["text"] for b in reply["result"]["content"] if b["type"] == "text")


def entry(runtime: Any, name: str, handler: Any, **fields: Any) -> Any:
    schema = fields.pop("input_schema", {"type": "object"})
    return runtime.registry.ToolEntry(
        name=name,
        published={r: {"name": name, "inputSchema": schema} for r in REVISIONS},
        input_schema=schema,
        output_schema=fields.pop("output_schema", None),
        handler=handler,
        arguments=fields.pop("arguments", {}),
        defaults=fields.pop("defaults", {}),
        **fields,
    )


def server_with(runtime: Any, *tools: Any, **options: Any) -> Any:
    options.setdefault("revisions", REVISIONS)
    return runtime.server.Server(tools=tools, name="t", version="1", **options)
