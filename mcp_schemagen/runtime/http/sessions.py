"""Streamable HTTP with sessions (2025-03-26 to 2025-11-25), shared through the store.

A session's record lives in the store, not in a worker: each request loads it, so the
next request may go to any worker behind a round-robin balancer. ``initialize`` mints
``Mcp-Session-Id`` (192 random bits); a request without one gets 400, with an unknown or
ended one 404; DELETE ends it. ``MCP-Protocol-Version`` (from 2025-06-18), when sent,
must be the negotiated revision (400 otherwise); absent, the negotiated one is assumed,
as older clients never send it. POSTed notifications and responses get 202:
``notifications/cancelled`` is published to every worker (the one running the call
cancels it), a response to a server request is delivered to the handler awaiting it.
GET with ``Last-Event-ID`` resumes a stream; GET without it opens the session's stream of
change notifications when the project has them (``standalone.py``), else
gets 405, since the server then pushes nothing outside a call.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Iterable
from typing import Any

from ..jsonrpc import RequestId, RpcError, is_request_id
from ..protocol import BY_NAME, INVALID_REQUEST, Revision
from ..session import Session
from ..session.admission import Slots
from ..shorten import shorten
from ..store import Store
from .endpoint import JSON, HttpRequest, MessageCore
from .headers import accepts
from .settings import HttpSettings
from .standalone import StandaloneStreams
from .stream import CallChannel, Resumable, answer, resume_stream, settle


def _ok(_reply: bytes) -> int:
    return 200  # JSON-RPC errors of a session travel in a 200 response


class SessionEndpoint:
    """POST, GET and DELETE of the session revisions (the stateless ones the server also
    speaks are left out of ``revisions`` here)."""

    def __init__(
        self,
        core: MessageCore,
        revisions: Iterable[Revision],
        store: Store,
        settings: HttpSettings,
        admission: Slots | None = None,
        standalone: StandaloneStreams | None = None,
    ) -> None:
        self.core = core
        self.standalone = standalone  # GET streams of change notifications (subscriptions/)
        self.admission = admission  # the process's bound on running requests
        self.store = store
        self.settings = settings
        self.revisions = {r.name: r for r in revisions if not r.stateless}
        # Calls running in this worker, by (session, request id), for cancellation.
        self._running: dict[tuple[str, RequestId], Session] = {}

    def cancel_local(self, session_id: str, request_id: RequestId) -> None:
        session = self._running.get((session_id, request_id))
        if session is not None:
            session.cancel(request_id)

    # ------------------------------------------------------------------ POST

    async def post(self, request: HttpRequest) -> None:
        message, respond = request.message, request.respond
        version = request.headers.get("mcp-protocol-version")
        channel = CallChannel()
        if type(message) is dict and message.get("method") == "initialize":
            session = Session(channel.send)
            session.admission = self.admission
            reply = settle(self.core.handle(request.message, session))
            extra: list[tuple[bytes, bytes]] = []
            if session.revision is not None:
                session_id = secrets.token_urlsafe(24)  # 192 random bits, visible ASCII
                await self.store.create_session(session_id, _record(session))
                extra.append((b"mcp-session-id", session_id.encode()))
            await answer(request, channel, reply, status_of=_ok, headers=extra, resumable=None)
            return
        refused = self._unsupported(version)
        if refused is not None:
            await respond.rpc_error(400, None, refused)
            return
        request_id = message.get("id") if type(message) is dict else None
        found = await self._session(request, request_id)
        if found is None:
            return
        session_id, record = found
        revision = BY_NAME[record["revision"]]
        refused = _not_the_sessions(version, revision)
        if refused is not None:
            await respond.rpc_error(400, request_id, refused, revision)
            return
        session = _restore(record, channel)
        session.key = session_id  # the session a task it creates is bound to, at any worker
        session.call_scoped = True
        session.admission = self.admission
        # A handler's request to the client goes out on this call's stream; the client
        # POSTs its response, maybe to another worker: it comes back through the store.
        session.outbound.waiter = functools.partial(self.store.await_reply, session_id)
        messages = message if type(message) is list else [message]
        requests = [
            m["id"]
            for m in messages
            if type(m) is dict and type(m.get("method")) is str and is_request_id(m.get("id"))
        ]
        session_header = [(b"mcp-session-id", session_id.encode())]
        if not requests:  # notifications and responses: 202, or 400 with stdio's error
            noted = self.core.handle(request.message, session)
            if noted is None or isinstance(noted, bytes):
                if type(message) is dict or revision.batching:  # a refused batch means nothing
                    for one in messages:
                        await self._note(session_id, one)
                if noted is None:
                    await respond.empty(202)
                else:
                    await respond.respond(400, noted, JSON, session_header)
            else:  # a request after all: answered as one, though not resumable
                await answer(
                    request, channel, settle(noted), status_of=_ok, headers=session_header,
                    resumable=None,
                )  # fmt: skip
            return
        # Its stream is named, and its calls leased to this worker, only if it opens.
        resumable = Resumable(
            self.store,
            session_id,
            None,
            self.settings.sse_retry_ms,
            priming=revision.sse_priming,
            requests=requests,
        )
        for request_id in requests:
            self._running[(session_id, request_id)] = session
        try:
            reply = settle(self.core.handle(request.message, session))
            if session.log_rank != record["log_rank"]:
                await self.store.update_session(session_id, {"log_rank": session.log_rank})
            if session.subscription_changes:  # resources/(un)subscribe, applied atomically
                await self.store.change_subscriptions(session_id, session.subscription_changes)
            await answer(
                request, channel, reply, status_of=_ok, headers=session_header, resumable=resumable
            )
        finally:
            await resumable.release()
            for request_id in requests:
                if self._running.get((session_id, request_id)) is session:
                    del self._running[(session_id, request_id)]

    async def _note(self, session_id: str, message: Any) -> None:
        """A notification or response the client POSTed: what it means to the session."""
        if type(message) is not dict:
            return
        method = message.get("method")
        params = message.get("params")
        store = self.store
        if method == "notifications/cancelled" and type(params) is dict:
            request_id = params.get("requestId")
            if type(request_id) is str or type(request_id) is int:
                await store.publish_cancel(session_id, request_id)
        elif method == "notifications/initialized":
            await store.update_session(session_id, {"initialized": True})
        elif (
            method is None
            and is_request_id(message.get("id"))
            and ("result" in message or "error" in message)
        ):
            await store.deliver_reply(session_id, message["id"], message)

    async def _session(
        self, request: HttpRequest, request_id: Any = None
    ) -> tuple[str, dict[str, Any]] | None:
        """The session the request names, or None once the error has been answered (with
        the request's id when it has one, as every revision's schema wants)."""
        session_id = request.headers.get("mcp-session-id")
        if session_id is None:
            failure = RpcError(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required")
            await request.respond.rpc_error(400, request_id, failure)
            return None
        record = await self.store.load_session(session_id)
        if record is None or record.get("revision") not in self.revisions:
            failure = RpcError(INVALID_REQUEST, "Session not found: initialize a new session")
            await request.respond.rpc_error(404, request_id, failure)
            return None
        return session_id, record

    def _unsupported(self, version: str | None) -> RpcError | None:
        if version is None or version in self.revisions:
            return None
        return RpcError(
            INVALID_REQUEST,
            f"Unsupported MCP-Protocol-Version {shorten(repr(version))}; supported: "
            + ", ".join(self.revisions),
        )

    async def _checked_session(self, request: HttpRequest) -> tuple[str, dict[str, Any]] | None:
        """The session of a GET or DELETE, its MCP-Protocol-Version checked as a POST's
        is (400 when not served, or not the session's), or None once answered."""
        version = request.headers.get("mcp-protocol-version")
        refused = self._unsupported(version)
        if refused is not None:
            await request.respond.rpc_error(400, None, refused)
            return None
        found = await self._session(request)
        if found is None:
            return None
        revision = BY_NAME[found[1]["revision"]]
        refused = _not_the_sessions(version, revision)
        if refused is not None:
            await request.respond.rpc_error(400, None, refused, revision)
            return None
        return found

    # ------------------------------------------------------------------ GET, DELETE

    async def get(self, request: HttpRequest) -> None:
        respond = request.respond
        if not accepts(request.headers.get("accept"))[1]:
            failure = RpcError(INVALID_REQUEST, "Not Acceptable: GET needs text/event-stream")
            await respond.rpc_error(406, None, failure)
            return
        found = await self._checked_session(request)
        if found is None:
            return
        session_id, record = found
        last = request.headers.get("last-event-id")
        if last is None and self.standalone is not None and self.standalone.enabled:
            await self.standalone.serve(request, session_id, bool(record.get("initialized")))
            return
        if last is None:
            await respond.plain(
                405, b"Method Not Allowed: no server-initiated stream", b"POST, DELETE"
            )
            return
        stream, _, sequence = last.rpartition("/")
        resumable = Resumable(
            self.store, session_id, stream, self.settings.sse_retry_ms,
            priming=BY_NAME[record["revision"]].sse_priming,
        )  # fmt: skip
        resumed = False
        if stream and sequence.isdigit():
            resumed = await resume_stream(
                request.send, request.receive, resumable, int(sequence),
                self.settings.resume_wait_seconds, [(b"mcp-session-id", session_id.encode())],
            )  # fmt: skip
        if not resumed:
            failure = RpcError(INVALID_REQUEST, f"Unknown or expired Last-Event-ID {last!r}")
            await respond.rpc_error(404, None, failure)

    async def delete(self, request: HttpRequest) -> None:
        found = await self._checked_session(request)
        if found is None:
            return
        await self.store.end_session(found[0])
        if self.standalone is not None:
            self.standalone.end(found[0])
        await request.respond.empty(200)


def _not_the_sessions(version: str | None, revision: Revision) -> RpcError | None:
    if version is None or version == revision.name:
        return None
    return RpcError(
        INVALID_REQUEST,
        f"MCP-Protocol-Version {shorten(repr(version))} is not this session's {revision.name!r}",
    )


def _record(session: Session) -> dict[str, Any]:
    assert session.revision is not None
    return {
        "revision": session.revision.name,
        "initialized": session.initialized,
        "log_rank": session.log_rank,
        "capabilities": session.client_capabilities,
        "client_info": session.client_info,
    }


def _restore(record: dict[str, Any], channel: CallChannel) -> Session:
    session = Session(channel.send)
    session.revision = BY_NAME[record["revision"]]
    session.initialized = record["initialized"]
    session.log_rank = record["log_rank"]
    session.client_capabilities = record["capabilities"]
    session.client_info = record["client_info"]
    session.subscription_changes = []  # the store keeps them (change_subscriptions)
    if session.revision.sse_priming:  # before it, a closed stream has no id to resume from
        session.close_stream = channel.close
    return session
