"""The protocol core: JSON-RPC bytes in, JSON-RPC bytes out, in each client's revision.

Transport-free. A transport makes one ``Session`` per connection and passes every
incoming message to ``Server.receive``, which returns the reply right away (``bytes``,
or ``None`` for notifications) or, for an async handler, an awaitable of it.
Notifications a handler sends (log, progress) go out through ``Session.send``.

Two eras share one server. A request whose ``_meta`` names a stateless revision
(2026-07-28) is answered in that revision's form, with nothing remembered between
requests. Otherwise the revision is the one the connection negotiated with
``initialize`` (2024-10-07 to 2025-11-25).
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Awaitable, Iterable, Sequence
from typing import Any

import orjson

from . import exact_json, jsonrpc
from .context import Context, enter, leave
from .cursor import encode_cursor, page_index
from .interaction import Channel, ClientCapabilityMissing, Interrupt, round_channel
from .jsonrpc import RequestId, RpcError, dumps_exact, is_request_id
from .protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LOG_RANK,
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    Revision,
    ordered,
)
from .registry import ToolEntry
from .request_state import RequestStateSeal
from .session import Send, Session, already_initialized
from .shorten import shorten
from .toolcall import Tool
from .workers import run_in_worker

Reply = bytes | None | Awaitable[bytes | None]

_loads = exact_json.loads  # integers beyond 64 bits stay integers
_JSONDecodeError = orjson.JSONDecodeError
_PLAIN = frozenset({str, dict, list, type(None)})  # return values that are never awaitable


class Server:
    """An MCP tools server.

    ``tools`` in the order tools/list publishes them; ``revisions`` the protocol revisions
    it speaks (each tool's ``published`` has a definition for every one of them);
    ``page_size`` tools per tools/list page (``None``: one page); ``ttl_ms`` and
    ``cache_scope`` the caching hints of 2026-07-28 tools/list and server/discover.
    """

    def __init__(
        self,
        *,
        tools: Sequence[ToolEntry],
        name: str,
        version: str,
        revisions: Iterable[str],
        page_size: int | None = 100,
        instructions: str | None = None,
        ttl_ms: int = 300_000,
        cache_scope: str = "public",
        request_state: RequestStateSeal | None = None,
    ) -> None:
        wanted = set(revisions)
        try:
            chosen = ordered(wanted)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        if not chosen:
            raise ValueError("a server speaks at least one protocol revision")
        if page_size is not None and page_size < 1:
            raise ValueError("page_size is a positive number of tools, or None")
        if cache_scope not in ("public", "private"):
            raise ValueError("cache_scope is 'public' or 'private'")
        self.name = name
        self.version = version
        self.instructions = instructions
        self.page_size = page_size
        self.ttl_ms = ttl_ms
        self.cache_scope = cache_scope
        self.revisions: tuple[Revision, ...] = chosen
        self.supported: list[str] = [r.name for r in chosen]
        self._by_name = {r.name: r for r in chosen}
        self._legacy = [r for r in chosen if not r.stateless]
        self._has_stateless = any(r.stateless for r in chosen)
        self._latest = chosen[-1]
        # initialize is always answered: a stateless-only server refuses it with -32022.
        self._methods = frozenset({"initialize"}).union(*(r.methods for r in chosen))
        self.tools: dict[str, Tool] = {}
        for entry in tools:
            if entry.name in self.tools:
                raise ValueError(f"two tools are named {entry.name!r}")
            missing = wanted - entry.published.keys()
            if missing:
                raise ValueError(f"tool {entry.name!r} has no definition for {sorted(missing)}")
            for revision in chosen:
                extra = entry.published[revision.name].keys() - revision.tool_fields
                if extra:
                    raise ValueError(
                        f"tool {entry.name!r} as published for {revision.name} has fields that"
                        f" revision does not define: {sorted(extra)}"
                    )
            self.tools[entry.name] = Tool(entry)
        self._server_info = {"name": name, "version": version}
        self._capabilities = {"logging": {}, "tools": {"listChanged": False}}
        self._stamp = {META_SERVER_INFO: self._server_info}
        self._pages: dict[str, list[bytes]] = {}
        self._default_session = Session()
        self.request_state = request_state or RequestStateSeal.from_environment()  # 2026-07-28

    # ----------------------------------------------------------------- entry points

    def session(self, send: Send | None = None) -> Session:
        """A new connection; ``send`` delivers notifications (log, progress) to it, always
        on the event loop's thread (a sync handler's sends come from a worker thread)."""
        return Session(send)

    async def handle_message(
        self, raw: bytes | bytearray | memoryview | str, session: Session | None = None
    ) -> bytes | None:
        """Handle one message in process and return the reply (``None``: nothing to send)."""
        reply = self.receive(raw, self._default_session if session is None else session)
        if reply is None or type(reply) is bytes:
            return reply
        assert not isinstance(reply, bytes)
        return await reply

    def receive(self, raw: bytes | bytearray | memoryview | str, session: Session) -> Reply:
        """Handle one message; bad input gets an error reply, never an exception."""
        try:
            message = _loads(raw)
        except _JSONDecodeError:
            return self.error_reply(None, RpcError(PARSE_ERROR, "Parse error"), session)
        kind = type(message)
        if kind is dict:
            return self._one(message, session)
        if kind is list:
            return self._batch(message, session)
        return self.error_reply(None, RpcError(INVALID_REQUEST, "Invalid Request"), session)

    # ------------------------------------------------------------------ messages

    def _one(self, message: dict[str, Any], session: Session) -> Reply:
        method = message.get("method")
        if "id" not in message:
            if type(method) is str:
                self._notification(method, message.get("params"), session)
                return None
            if "result" in message or "error" in message:
                return None  # an answer to nothing we asked
            return self.error_reply(None, RpcError(INVALID_REQUEST, "Invalid Request"), session)
        request_id = message["id"]
        if method is None and ("result" in message or "error" in message):
            session.outbound.answer(message)  # the client answers a request of ours
            return None
        id_type = type(request_id)
        if id_type is not str and id_type is not int:
            failure = RpcError(
                INVALID_REQUEST, "Invalid Request: id must be a string or an integer"
            )
            return self.error_reply(None, failure, session)
        if message.get("jsonrpc") != "2.0" or type(method) is not str:
            return jsonrpc.error(request_id, RpcError(INVALID_REQUEST, "Invalid Request"))
        params = message.get("params")
        if params is None:
            params = {}
        elif type(params) is not dict:
            return jsonrpc.error(request_id, RpcError(INVALID_PARAMS, "params must be an object"))
        try:
            return self._request(request_id, method, params, session)
        except RpcError as failure:
            return jsonrpc.error(request_id, failure)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return jsonrpc.error(request_id, RpcError(INTERNAL_ERROR, "Internal error"))

    def _batch(self, messages: list[Any], session: Session) -> Reply:
        revision = session.revision
        if revision is None or not revision.batching:
            where = f" in protocol revision {revision.name}" if revision is not None else ""
            failure = RpcError(INVALID_REQUEST, f"JSON-RPC batches are not supported{where}")
            return self.error_reply(None, failure, session)
        if not messages:
            return self.error_reply(
                None, RpcError(INVALID_REQUEST, "Invalid Request: empty batch"), session
            )
        replies: list[bytes | asyncio.Future[bytes | None]] = []
        for message in messages:
            if type(message) is not dict:
                reply: Reply = self.error_reply(
                    None, RpcError(INVALID_REQUEST, "Invalid Request"), session
                )
            elif message.get("method") == "initialize" and is_request_id(message.get("id")):
                failure = RpcError(INVALID_REQUEST, "initialize must not be part of a batch")
                reply = jsonrpc.error(message["id"], failure)
            else:
                reply = self._one(message, session)
            if reply is None:
                continue
            if type(reply) is bytes:
                replies.append(reply)
            else:
                assert not isinstance(reply, bytes)
                replies.append(asyncio.ensure_future(reply))
        if not replies:
            return None
        if all(type(r) is bytes for r in replies):
            return b"[" + b",".join(r for r in replies if type(r) is bytes) + b"]"
        return jsonrpc.join_batch(replies)

    def _notification(self, method: str, params: Any, session: Session) -> None:
        if method == "notifications/cancelled":
            if type(params) is dict:
                session.cancel(params.get("requestId"))
        elif method == "notifications/initialized":
            session.initialized = True
        # Any other notification (progress, roots changed, ...) asks nothing of a tools server.

    def error_reply(
        self, request_id: RequestId | None, failure: RpcError, session: Session
    ) -> bytes:
        return (session.revision or self._latest).error(request_id, failure)

    # ------------------------------------------------------------------ requests

    def _request(
        self, request_id: RequestId, method: str, params: dict[str, Any], session: Session
    ) -> Reply:
        if method not in self._methods:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {shorten(method)}")
        if method == "initialize":
            return jsonrpc.result(request_id, self._initialize(params, session))
        meta = params.get("_meta")
        if type(meta) is not dict:
            meta = None
        version = None if meta is None else meta.get(META_PROTOCOL_VERSION)
        log_rank: int | None = None  # follow the session's logging/setLevel
        if version is not None:
            revision = self._by_name.get(version) if type(version) is str else None
            if revision is None:
                raise self._unsupported(version)
            if revision.stateless:
                assert meta is not None
                if type(meta.get(META_CLIENT_CAPABILITIES)) is not dict:
                    raise RpcError(
                        INVALID_PARAMS,
                        f"Missing _meta {META_CLIENT_CAPABILITIES} (an object; {{}} declares none)",
                    )
                log_rank = _log_rank(meta.get(META_LOG_LEVEL))
            elif session.revision is not None:
                revision = session.revision
        elif session.revision is not None:
            revision = session.revision
        elif method == "ping":
            return jsonrpc.result(request_id, {})
        else:
            raise RpcError(INVALID_PARAMS, self._no_revision_message())
        if method not in revision.methods:
            raise RpcError(
                METHOD_NOT_FOUND,
                f"Method not found in protocol revision {revision.name}: {shorten(method)}",
            )
        if method == "tools/call":
            return self._call(request_id, params, meta, revision, log_rank, session)
        if method == "tools/list":
            return jsonrpc.cached_result(request_id, self._page(revision, params.get("cursor")))
        if method == "server/discover":
            return jsonrpc.result(request_id, self._discover())
        if method == "logging/setLevel":
            rank = _log_rank(params.get("level"))
            if rank < 0:
                raise RpcError(INVALID_PARAMS, "logging/setLevel needs a level")
            session.log_rank = rank
            return jsonrpc.result(request_id, {})
        if method == "ping":
            return jsonrpc.result(request_id, {})
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")  # pragma: no cover

    def _no_revision_message(self) -> str:
        if self._has_stateless and self._legacy:
            return (
                f"Missing _meta {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}; "
                "send them on every request, or initialize first"
            )
        if self._has_stateless:
            return f"Missing _meta {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}"
        return "The connection is not initialized: send initialize first"

    def _unsupported(self, requested: Any) -> RpcError:
        if type(requested) is not str:
            return RpcError(INVALID_PARAMS, f"_meta {META_PROTOCOL_VERSION} must be a string")
        return RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"requested": shorten(requested), "supported": self.supported},
        )

    def _initialize(self, params: dict[str, Any], session: Session) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        if type(requested) is not str:
            raise RpcError(INVALID_PARAMS, "initialize needs protocolVersion, a string")
        if not self._legacy:
            raise self._unsupported(requested)
        if session.revision is not None:
            raise already_initialized(session.revision)
        revision = self._by_name.get(requested)
        if revision is None or revision.stateless:
            revision = self._legacy[-1]  # the newest revision this server negotiates
        session.revision = revision
        session.initialized = False
        session.log_rank = 0
        capabilities = params.get("capabilities")
        session.client_capabilities = capabilities if type(capabilities) is dict else {}
        info = params.get("clientInfo")
        session.client_info = info if type(info) is dict else {}
        body: dict[str, Any] = {
            "protocolVersion": revision.name,
            "capabilities": self._capabilities,
            "serverInfo": self._server_info,
        }
        if self.instructions is not None and "instructions" in revision.initialize_result_fields:
            body["instructions"] = self.instructions
        return body

    def _discover(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "supportedVersions": self.supported,
            "capabilities": self._capabilities,
            "ttlMs": self.ttl_ms,
            "cacheScope": self.cache_scope,
            "resultType": "complete",
            "_meta": self._stamp,
        }
        if self.instructions is not None:
            body["instructions"] = self.instructions
        return body

    # ----------------------------------------------------------------- tools/list

    def _page(self, revision: Revision, cursor: Any) -> bytes:
        pages = self._pages.get(revision.name)
        if pages is None:
            pages = self._pages[revision.name] = self._encode_pages(revision)
        if cursor is None:
            return pages[0]
        index = page_index(cursor)
        if index is None or not 0 < index < len(pages):
            raise RpcError(INVALID_PARAMS, "Invalid cursor")
        return pages[index]

    def _encode_pages(self, revision: Revision) -> list[bytes]:
        published = [tool.entry.published[revision.name] for tool in self.tools.values()]
        size = self.page_size or max(len(published), 1)
        chunks = [published[i : i + size] for i in range(0, len(published), size)] or [[]]
        pages = []
        for index, chunk in enumerate(chunks):
            cursor = None
            if index + 1 < len(chunks):
                cursor = encode_cursor(index + 1)
            body = revision.list_result(
                chunk, cursor, ttl_ms=self.ttl_ms, cache_scope=self.cache_scope
            )
            pages.append(dumps_exact(revision.stamp(body, self._stamp)))
        return pages

    # ----------------------------------------------------------------- tools/call

    def _call(
        self,
        request_id: RequestId,
        params: dict[str, Any],
        meta: dict[str, Any] | None,
        revision: Revision,
        log_rank: int | None,
        session: Session,
    ) -> Reply:
        name = params.get("name")
        if type(name) is not str:
            raise RpcError(INVALID_PARAMS, "tools/call needs the tool's name")
        tool = self.tools.get(name)
        if tool is None:
            raise revision.unknown_tool(shorten(name))
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {name}: not a JSON object")
        problems = tool.invalid(arguments)
        if problems is not None:
            text = f"Invalid arguments for tool {name}: " + "; ".join(problems)
            body = revision.invalid_arguments(text, problems)
            return jsonrpc.result(request_id, revision.stamp(body, self._stamp))
        channel = round_channel(params, meta, revision, self.request_state, name)
        kwargs = tool.keyword_arguments(arguments)
        token = None if meta is None else meta.get("progressToken")
        token = token if is_request_id(token) else None
        context = Context(session, revision, request_id, name, token, log_rank, channel)
        # The context is entered around the call, and a task made here copies it, so an
        # async handler sees it for its whole run.
        entered = enter(context)
        try:
            if tool.in_worker:  # a sync handler may block: never on the event loop
                running = run_in_worker(tool.handler, kwargs)
                return self._start(tool, running, request_id, revision, session, channel)
            value = tool.handler(**kwargs)
            if tool.is_async or _awaitable(value):
                return self._start(tool, value, request_id, revision, session, channel)
        except RpcError:
            raise  # a handler's ProtocolError: the call fails with that JSON-RPC error
        except Exception as exc:
            value = tool.failure(exc)
        finally:
            leave(entered)
        return tool.response(value, request_id, revision, self._stamp)

    def _start(
        self,
        tool: Tool,
        running: Awaitable[Any],
        request_id: RequestId,
        revision: Revision,
        session: Session,
        channel: Channel | None,
    ) -> asyncio.Task[bytes]:
        task = asyncio.ensure_future(
            self._complete(tool, running, request_id, revision, session, channel)
        )
        session.track(request_id, task)
        close = getattr(running, "close", None)
        if close is not None:  # a coroutine cancelled before it ran: close it quietly
            task.add_done_callback(lambda _: close())
        return task

    async def _complete(
        self,
        tool: Tool,
        running: Awaitable[Any],
        request_id: RequestId,
        revision: Revision,
        session: Session,
        channel: Channel | None = None,
    ) -> bytes:
        task = asyncio.current_task()
        try:
            value = await running
            if _awaitable(value):  # a sync handler (in a worker) returned a coroutine
                value = await value
        except asyncio.CancelledError as exc:
            if task is None or task.cancelling():
                raise  # cancelled by the client (or at shutdown): no response is sent
            value = tool.failure(exc)  # the handler's own CancelledError is a failure
        except Interrupt as stop:  # 2026-07-28: questions for the client, or a bad state
            return await stop.reply(request_id, channel, self._stamp)
        except ClientCapabilityMissing as missing:
            if revision.missing_capability_is_error:
                return jsonrpc.error(request_id, missing.rpc_error())
            value = tool.failure(missing)
        except RpcError as failure:  # a handler's ProtocolError
            return jsonrpc.error(request_id, failure)
        except Exception as exc:
            value = tool.failure(exc)
        finally:
            session.forget(request_id, task)
        return tool.response(value, request_id, revision, self._stamp)


def _awaitable(value: Any) -> bool:
    return type(value) not in _PLAIN and hasattr(value, "__await__")


def _log_rank(level: Any) -> int:
    """The rank of a log level; -1 (send nothing) when absent."""
    if level is None:
        return -1
    rank = LOG_RANK.get(level) if type(level) is str else None
    if rank is None:
        raise RpcError(
            INVALID_PARAMS,
            f"Invalid log level {shorten(repr(level))}; one of {', '.join(LOG_RANK)}",
        )
    return rank
