"""Asking the client in the middle of a tool call: elicitation, sampling, roots.

    from .api import get_context

    async def delete_file(*, path: str) -> str:
        answer = await get_context().elicit(f"Delete {path}?", confirm_form(), key="confirm")
        if not answer.accepted:
            return "kept"
        ...

One handler body serves every revision. Session revisions (2024-11-05 to 2025-11-25)
send the client a JSON-RPC request and wait for its response. 2026-07-28 keeps nothing
between requests: the first question without an answer ends the call with an
``input_required`` result (every question of that round, each under its key), and the
client's retry runs the handler again from its start, answering each question from the
retry's ``inputResponses`` or the ``requestState`` of earlier rounds. So the work a
handler does before a question runs again on every round: ask first, act after.

A client that did not declare a capability is never sent the request: the handler gets
``ClientCapabilityMissing`` (a ``ToolError``), which becomes a tool error, or in
2026-07-28 the -32021 error naming the capability, unless the handler catches it.

This module is how a question travels; handler_methods.py is what a handler calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .. import jsonrpc
from ..jsonrpc import RequestId, RpcError, Send
from ..protocol import INVALID_PARAMS, META_CLIENT_CAPABILITIES, Revision
from ..session import Session
from ..session.outbound import ClientGone
from ..session.request import RequestContext
from .errors import ClientError, ClientTimeout, InteractionError, InvalidAnswer
from .request_state import RequestStateSeal, call_binding

if TYPE_CHECKING:
    from .questions import Question

# ------------------------------------------------------------------ how it travels


class Interrupt(BaseException):
    """Ends a call past its handler: not an ``Exception``, so a handler's ``except
    Exception`` cannot swallow it (like ``asyncio.CancelledError``)."""

    async def reply(
        self, request_id: RequestId, channel: Channel | None, server_meta: Mapping[str, Any]
    ) -> bytes:
        raise NotImplementedError


class InputRequired(Interrupt):
    """2026-07-28: the call needs answers; it ends with an InputRequiredResult."""

    def __init__(self, requests: dict[str, dict[str, Any]], answers: dict[str, Any]) -> None:
        super().__init__("the client must answer before the call can go on")
        self.requests = requests
        self.answers = answers

    async def reply(
        self, request_id: RequestId, channel: Channel | None, server_meta: Mapping[str, Any]
    ) -> bytes:
        """The open questions by key, and the answers so far sealed into requestState."""
        assert isinstance(channel, RoundChannel)
        body = {
            "resultType": "input_required",
            "inputRequests": self.requests,
            "requestState": await channel.sealed(self.answers),
            "_meta": server_meta,
        }
        return jsonrpc.result(request_id, body)


class Refused(Interrupt):
    """Ends a call with a JSON-RPC error (a forged requestState, say)."""

    def __init__(self, failure: RpcError) -> None:
        super().__init__(failure.message)
        self.failure = failure

    async def reply(
        self, request_id: RequestId, channel: Channel | None, server_meta: Mapping[str, Any]
    ) -> bytes:
        return jsonrpc.error(request_id, self.failure)


class Channel:
    """How questions reach the client and answers come back, for one tool call."""

    __slots__ = ("_asked", "capabilities")

    def __init__(self, capabilities: dict[str, Any]) -> None:
        self.capabilities = capabilities
        self._asked = 0

    def next_key(self, kind: str) -> str:
        # Deterministic, so the same question gets the same key on every round.
        self._asked += 1
        return f"{kind}-{self._asked}"

    async def ask(
        self, questions: Mapping[str, Question], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        raise NotImplementedError


class SessionChannel(Channel):
    """Session revisions: a JSON-RPC request to the client for each question, at once."""

    __slots__ = ("_session",)

    def __init__(self, session: Session) -> None:
        super().__init__(session.client_capabilities)
        self._session = session

    async def ask(
        self, questions: Mapping[str, Question], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        keys = list(questions)
        asked = [asyncio.ensure_future(self._one(questions[k], revision, timeout)) for k in keys]
        try:
            answers = await asyncio.gather(*asked)
        except BaseException:
            for task in asked:  # one failed, or the call was cancelled: withdraw the rest
                task.cancel()
            await asyncio.wait(asked)  # each tells the client it is withdrawn
            raise
        return dict(zip(keys, answers, strict=True))

    async def _one(self, question: Question, revision: Revision, timeout: float) -> Any:
        send: Send = self._session.send
        try:
            response = await self._session.outbound.ask(
                send, question.method, question.params(revision), timeout
            )
        except TimeoutError:
            raise ClientTimeout(
                f"The client did not answer {question.method} within {timeout:g} s"
            ) from None
        except ClientGone as gone:
            raise InteractionError(str(gone)) from None
        error = response.get("error")
        if error is not None:
            if type(error) is not dict:
                raise InvalidAnswer(f"the client answered {question.method} with a malformed error")
            raise ClientError(error.get("code"), str(error.get("message", "")), error.get("data"))
        return question.parse(response.get("result"))


# Event-loop turns a question waits for others asked at the same time (tasks started
# together, each perhaps awaiting once before it asks) to join its round.
_ROUND_GATHER_TURNS = 4


class RoundChannel(Channel):
    """2026-07-28: answers from the retry's inputResponses and the sealed requestState;
    a question without an answer ends this round (``InputRequired``)."""

    __slots__ = ("_answers", "_binding", "_opened", "_pending", "_responses", "_seal", "_state")

    def __init__(
        self,
        capabilities: dict[str, Any],
        responses: Mapping[str, Any] | None,
        state: str | None,
        seal: RequestStateSeal,
        binding: Callable[[], str],
    ) -> None:
        super().__init__(capabilities)
        self._responses = responses or {}
        self._state = state
        self._seal = seal
        self._binding = binding
        self._answers: dict[str, Any] = {}  # every answer this run has used, by key
        self._opened = state is None
        self._pending: dict[str, dict[str, Any]] = {}  # unanswered, by key, this round

    async def ask(
        self, questions: Mapping[str, Question], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        if not self._opened:
            self._opened = True
            try:
                self._answers = await self._seal.open(self._state, self._binding())
            except RpcError as failure:
                raise Refused(failure) from None
        found: dict[str, Any] = {}
        missing: dict[str, dict[str, Any]] = {}
        for key, question in questions.items():
            raw = self._answers.get(key, self._responses.get(key))
            try:
                found[key] = question.parse(raw)
                self._answers[key] = raw
            except InvalidAnswer:  # absent or malformed: ask (again)
                missing[key] = {"method": question.method, "params": question.params(revision)}
        if missing:
            # Questions asked together (`asyncio.gather(ctx.elicit(...), ctx.sample(...))`)
            # are one round, as with `ask({...})`: let the others be asked before it ends.
            self._pending.update(missing)
            for _ in range(_ROUND_GATHER_TURNS):
                await asyncio.sleep(0)
            raise InputRequired(dict(self._pending), self._answers)
        return found

    async def sealed(self, answers: dict[str, Any]) -> str:
        return await self._seal.seal(self._binding(), answers)


def round_channel(
    request: RequestContext, seal: RequestStateSeal, tool: str
) -> RoundChannel | None:
    """The channel of a 2026-07-28 tools/call (None in a session revision, whose channel
    is the session's); -32602 for answers of the wrong type."""
    params, meta = request.params, request.meta
    if meta is None or not request.revision.stateless:
        return None
    if "inputResponses" in params and type(params["inputResponses"]) is not dict:
        raise RpcError(INVALID_PARAMS, "inputResponses must be an object of answers by key")
    if "requestState" in params and type(params["requestState"]) is not str:
        raise RpcError(INVALID_PARAMS, "requestState must be the string the server sent")
    arguments = params.get("arguments")
    return RoundChannel(
        meta[META_CLIENT_CAPABILITIES],
        params.get("inputResponses"),
        params.get("requestState"),
        seal,
        lambda: call_binding(tool, arguments),
    )
