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
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NotRequired, TypedDict

from .jsonrpc import RpcError
from .outbound import ClientGone, Send
from .protocol import MISSING_REQUIRED_CLIENT_CAPABILITY, Revision
from .request_state import RequestStateSeal, call_binding
from .result import ToolError
from .session import Session
from .validation import compile_validator, describe_errors

DEFAULT_TIMEOUT_SECONDS = 300.0

Action = Literal["accept", "decline", "cancel"]
FormValue = str | int | float | bool | list[str]


# ------------------------------------------------------------------ what a handler gets


@dataclass(frozen=True, slots=True)
class ElicitResult:
    """The user's answer: ``accept`` with the form's ``content``, ``decline`` or ``cancel``."""

    action: Action
    content: dict[str, FormValue] | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True, slots=True)
class SampleResult:
    """The message the client's model produced."""

    role: str
    content: Any  # a content block (text, image, audio, tool use ...) or a list of them
    model: str
    stop_reason: str | None = None

    @property
    def text(self) -> str:
        """The text of the message's text blocks."""
        blocks = self.content if isinstance(self.content, list) else [self.content]
        return "".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text")


class Root(TypedDict):
    uri: str
    name: NotRequired[str]


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


# ------------------------------------------------------------------ what a handler asks


class Request:
    """One question for the client."""

    __slots__ = ()
    method: ClassVar[str]
    kind: ClassVar[str]  # the default key prefix

    def params(self, revision: Revision) -> dict[str, Any]:
        raise NotImplementedError

    def capability(self) -> tuple[dict[str, Any], str] | None:
        """The client capability this needs, as a requiredCapabilities object and in words."""
        raise NotImplementedError

    def parse(self, result: Any) -> Any:
        raise NotImplementedError

    def allowed(self, capabilities: Mapping[str, Any]) -> bool:
        needed = self.capability()
        return needed is None or _declares(capabilities, needed[0])


@dataclass(frozen=True, slots=True)
class Elicit(Request):
    """``elicitation/create``: a form (``schema``, flat primitive fields) or a URL to open."""

    method: ClassVar[str] = "elicitation/create"
    kind: ClassVar[str] = "elicit"
    message: str
    schema: Mapping[str, Any] | None = None
    url: str | None = None
    elicitation_id: str | None = None

    def __post_init__(self) -> None:
        if (self.schema is None) == (self.url is None):
            raise ValueError("an elicitation has a form schema or a url, not both and not neither")

    def params(self, revision: Revision) -> dict[str, Any]:
        try:
            if self.url is not None:
                return revision.url_elicit_params(self.message, self.url, self.elicitation_id or "")
            assert self.schema is not None
            return {"message": self.message, "requestedSchema": revision.form_schema(self.schema)}
        except ValueError as exc:  # a form or mode this revision does not define
            raise InteractionError(str(exc)) from None

    def capability(self) -> tuple[dict[str, Any], str]:
        if self.url is not None:
            return {"elicitation": {"url": {}}}, "URL mode elicitation"
        return {"elicitation": {}}, "elicitation"

    def parse(self, result: Any) -> ElicitResult:
        if type(result) is not dict or result.get("action") not in ("accept", "decline", "cancel"):
            raise InvalidAnswer("the elicitation answer has no action accept, decline or cancel")
        content = result.get("content")
        if content is not None and type(content) is not dict:
            raise InvalidAnswer("the elicitation answer's content is not an object")
        if result["action"] == "accept" and self.schema is not None:
            _check_form(self.schema, content or {})
        return ElicitResult(result["action"], content if result["action"] == "accept" else None)


@dataclass(frozen=True, slots=True)
class Sample(Request):
    """``sampling/createMessage``: ask the client's model. A message may be plain text
    (a user message) or a SamplingMessage object."""

    method: ClassVar[str] = "sampling/createMessage"
    kind: ClassVar[str] = "sample"
    messages: Sequence[str | Mapping[str, Any]]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: Sequence[str] | None = None
    model_preferences: Mapping[str, Any] | None = None
    include_context: str | None = None
    metadata: Mapping[str, Any] | None = None
    tools: Sequence[Mapping[str, Any]] | None = None
    tool_choice: Mapping[str, Any] | None = None

    def params(self, revision: Revision) -> dict[str, Any]:
        fields = {
            "messages": [_message(m) for m in self.messages],
            "maxTokens": self.max_tokens,
            "systemPrompt": self.system_prompt,
            "temperature": self.temperature,
            "stopSequences": None if self.stop_sequences is None else list(self.stop_sequences),
            "modelPreferences": self.model_preferences,
            "includeContext": self.include_context,
            "metadata": self.metadata,
            "tools": None if self.tools is None else list(self.tools),
            "toolChoice": self.tool_choice,
        }
        undefined = [
            k for k, v in fields.items() if v is not None and k not in revision.sampling_fields
        ]
        if undefined:
            raise InteractionError(
                f"protocol revision {revision.name} does not define sampling with {', '.join(undefined)}"
            )
        return {k: v for k, v in fields.items() if v is not None}

    def capability(self) -> tuple[dict[str, Any], str]:
        if self.tools is not None or self.tool_choice is not None:
            return {"sampling": {"tools": {}}}, "sampling with tools"
        return {"sampling": {}}, "sampling"

    def parse(self, result: Any) -> SampleResult:
        if (
            type(result) is not dict
            or type(result.get("role")) is not str
            or type(result.get("model")) is not str
            or type(result.get("content")) not in (dict, list)
        ):
            raise InvalidAnswer("the sampling answer lacks its role, content or model")
        stop = result.get("stopReason")
        return SampleResult(result["role"], result["content"], result["model"], stop)


@dataclass(frozen=True, slots=True)
class ListRoots(Request):
    """``roots/list``: the directories and files the client lets this server work on."""

    method: ClassVar[str] = "roots/list"
    kind: ClassVar[str] = "roots"

    def params(self, revision: Revision) -> dict[str, Any]:
        return {}

    def capability(self) -> tuple[dict[str, Any], str]:
        return {"roots": {}}, "roots"

    def parse(self, result: Any) -> list[Root]:
        roots = result.get("roots") if type(result) is dict else None
        if type(roots) is not list or not all(
            type(r) is dict and type(r.get("uri")) is str for r in roots
        ):
            raise InvalidAnswer("the roots answer is not a list of roots with a uri each")
        return [
            Root(uri=r["uri"], name=r["name"]) if "name" in r else Root(uri=r["uri"]) for r in roots
        ]


# ------------------------------------------------------------------ how it travels


class InputRequired(BaseException):
    """Ends a 2026-07-28 call that needs answers: not an ``Exception``, so a handler's
    ``except Exception`` cannot swallow it (like ``asyncio.CancelledError``)."""

    def __init__(self, requests: dict[str, dict[str, Any]], answers: dict[str, Any]) -> None:
        super().__init__("the client must answer before the call can go on")
        self.requests = requests
        self.answers = answers


class Refused(BaseException):
    """Ends a call with a JSON-RPC error (a forged requestState, say), past the handler."""

    def __init__(self, failure: RpcError) -> None:
        super().__init__(failure.message)
        self.failure = failure


class Channel:
    """How questions reach the client and answers come back, for one tool call."""

    __slots__ = ("_asked", "capabilities")

    def __init__(self, capabilities: Mapping[str, Any]) -> None:
        self.capabilities = capabilities
        self._asked = 0

    def next_key(self, kind: str) -> str:
        # Deterministic, so the same question gets the same key on every round.
        self._asked += 1
        return f"{kind}-{self._asked}"

    async def ask(
        self, requests: Mapping[str, Request], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        raise NotImplementedError


class SessionChannel(Channel):
    """Session revisions: a JSON-RPC request to the client for each question, at once."""

    __slots__ = ("_session",)

    def __init__(self, session: Session) -> None:
        super().__init__(session.client_capabilities)
        self._session = session

    async def ask(
        self, requests: Mapping[str, Request], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        keys = list(requests)
        asked = [asyncio.ensure_future(self._one(requests[k], revision, timeout)) for k in keys]
        try:
            answers = await asyncio.gather(*asked)
        except BaseException:
            for task in asked:  # one failed, or the call was cancelled: withdraw the rest
                task.cancel()
            await asyncio.wait(asked)  # each tells the client it is withdrawn
            raise
        return dict(zip(keys, answers, strict=True))

    async def _one(self, request: Request, revision: Revision, timeout: float) -> Any:
        send: Send = self._session.send
        try:
            response = await self._session.outbound.ask(
                send, request.method, request.params(revision), timeout
            )
        except TimeoutError:
            raise ClientTimeout(
                f"The client did not answer {request.method} within {timeout:g} s"
            ) from None
        except ClientGone as gone:
            raise InteractionError(str(gone)) from None
        error = response.get("error")
        if error is not None:
            if type(error) is not dict:
                raise InvalidAnswer(f"the client answered {request.method} with a malformed error")
            raise ClientError(error.get("code"), str(error.get("message", "")), error.get("data"))
        return request.parse(response.get("result"))


class RoundChannel(Channel):
    """2026-07-28: answers from the retry's inputResponses and the sealed requestState;
    a question without an answer ends this round (``InputRequired``)."""

    __slots__ = ("_answers", "_binding", "_opened", "_responses", "_seal", "_state")

    def __init__(
        self,
        capabilities: Mapping[str, Any],
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

    async def ask(
        self, requests: Mapping[str, Request], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        if not self._opened:
            self._opened = True
            try:
                self._answers = await self._seal.open(self._state, self._binding())
            except RpcError as failure:
                raise Refused(failure) from None
        found: dict[str, Any] = {}
        missing: dict[str, dict[str, Any]] = {}
        for key, request in requests.items():
            raw = self._answers.get(key, self._responses.get(key))
            try:
                found[key] = request.parse(raw)
                self._answers[key] = raw
            except InvalidAnswer:  # absent or malformed: ask (again)
                missing[key] = {"method": request.method, "params": request.params(revision)}
        if missing:
            raise InputRequired(missing, self._answers)
        return found

    async def sealed(self, answers: dict[str, Any]) -> str:
        return await self._seal.seal(self._binding(), answers)


async def input_required(
    need: InputRequired, channel: Channel, server_meta: Mapping[str, Any]
) -> dict[str, Any]:
    """The InputRequiredResult that ends this round: the open questions by key, and the
    answers so far sealed into requestState."""
    assert isinstance(channel, RoundChannel)
    return {
        "resultType": "input_required",
        "inputRequests": need.requests,
        "requestState": await channel.sealed(need.answers),
        "_meta": server_meta,
    }


def round_channel(
    params: Mapping[str, Any],
    capabilities: Mapping[str, Any],
    seal: RequestStateSeal,
    tool: str,
    arguments: Any,
) -> RoundChannel:
    """The channel of one 2026-07-28 tools/call (its params already type-checked)."""
    return RoundChannel(
        capabilities,
        params.get("inputResponses"),
        params.get("requestState"),
        seal,
        lambda: call_binding(tool, arguments),
    )


# ------------------------------------------------------------------ the handler's methods


class Asking:
    """The context's methods for asking the client (mixed into ``Context``)."""

    __slots__ = ()
    revision: Revision

    def _channel(self) -> Channel:
        raise NotImplementedError

    def client_supports(self, request: Request) -> bool:
        """Whether the client declared what ``request`` needs (so it can be asked)."""
        return request.method in self.revision.client_requests and request.allowed(
            self._channel().capabilities
        )

    async def ask(
        self, requests: Mapping[str, Request], *, timeout: float = DEFAULT_TIMEOUT_SECONDS
    ) -> dict[str, Any]:
        """Ask several questions in one round (at once), each under its key; the answers
        by the same keys (``ElicitResult``, ``SampleResult``, ``list[Root]``)."""
        channel = self._channel()
        for request in requests.values():
            if request.method not in self.revision.client_requests:
                raise InteractionError(
                    f"protocol revision {self.revision.name} has no {request.method} request"
                )
            needed = request.capability()
            if needed is not None and not _declares(channel.capabilities, needed[0]):
                raise ClientCapabilityMissing(needed[0], needed[1])
        return await channel.ask(requests, self.revision, timeout)

    async def elicit(
        self,
        message: str,
        schema: Mapping[str, Any] | None = None,
        *,
        url: str | None = None,
        elicitation_id: str | None = None,
        key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> ElicitResult:
        """Ask the user: a form (``schema``: flat primitive fields, see ``form()``) or,
        where the revision defines it, a ``url`` to open. ``key`` names the question in a
        2026-07-28 input_required result (default: ``elicit-1``, ``elicit-2``, ...)."""
        request = Elicit(message, schema, url, elicitation_id)
        answer: ElicitResult = await self._ask_one(request, key, timeout)
        return answer

    async def sample(
        self,
        messages: Sequence[str | Mapping[str, Any]],
        *,
        max_tokens: int,
        key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        **options: Any,
    ) -> SampleResult:
        """Ask the client's model (sampling/createMessage). ``options``: system_prompt,
        temperature, stop_sequences, model_preferences, include_context, metadata, and
        tools / tool_choice where the revision defines them."""
        answer: SampleResult = await self._ask_one(
            Sample(messages, max_tokens, **options), key, timeout
        )
        return answer

    async def list_roots(
        self, *, key: str | None = None, timeout: float = DEFAULT_TIMEOUT_SECONDS
    ) -> list[Root]:
        """The client's roots (roots/list)."""
        answer: list[Root] = await self._ask_one(ListRoots(), key, timeout)
        return answer

    async def _ask_one(self, request: Request, key: str | None, timeout: float) -> Any:
        if key is None:
            key = self._channel().next_key(request.kind)
        return (await self.ask({key: request}, timeout=timeout))[key]


# ------------------------------------------------------------------ helpers


def form(
    fields: Mapping[str, Mapping[str, Any]], *, required: Sequence[str] = ()
) -> dict[str, Any]:
    """An elicitation form: ``form({"ok": boolean("Delete it?")}, required=["ok"])``."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(fields)}
    if required:
        schema["required"] = list(required)
    return schema


def _declares(capabilities: Mapping[str, Any], needed: Mapping[str, Any]) -> bool:
    for name, sub in needed.items():
        declared = capabilities.get(name)
        if type(declared) is not dict:
            return False
        if name == "elicitation" and not sub and "url" in declared and "form" not in declared:
            return False  # URL mode only (``elicitation: {}`` alone declares form mode)
        if not _declares(declared, sub):
            return False
    return True


def _check_form(schema: Mapping[str, Any], content: Mapping[str, Any]) -> None:
    """The client must answer what the form asked: its content is checked against it."""
    validator = compile_validator(schema)
    if not validator.is_valid(content):
        problems = [
            p.replace("argument ", "field ", 1).replace("the arguments: ", "", 1)
            for p in describe_errors(validator, content)
        ]
        raise InvalidAnswer(
            "the accepted form does not match what was asked: " + "; ".join(problems)
        )


def _message(message: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(message, str):
        return {"role": "user", "content": {"type": "text", "text": message}}
    return dict(message)


__all__ = [
    "Asking",
    "ClientCapabilityMissing",
    "ClientError",
    "ClientTimeout",
    "Elicit",
    "ElicitResult",
    "InteractionError",
    "InvalidAnswer",
    "ListRoots",
    "Root",
    "Sample",
    "SampleResult",
    "form",
]
