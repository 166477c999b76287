"""prompts/get and completion/complete: arguments checked, the handler run by the call
lifecycle tools share (core/lifecycle.py: on the loop, in a worker or as a task, with
``get_context()`` as in a tool call, so it may ask the client), its messages shaped into
the revision's GetPromptResult.

Every failure is a JSON-RPC error, as the prompts chapter says: an unknown prompt, a
missing required argument or an argument that fails its schema is -32602 naming it; a
handler that raises or returns what no client can be sent is -32603.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import jsonrpc
from ..asking.request_state import RequestStateSeal
from ..core.conversion import for_revision
from ..core.lifecycle import handler_error, internal_error
from ..core.serving import Serving
from ..jsonrpc import Reply, RequestId, RpcError
from ..prompt_result import PromptResult, user
from ..protocol import INVALID_PARAMS, Revision
from ..session.request import RequestContext
from ..shorten import shorten
from ..validation import LazyValidators
from ..workers import Placement
from .table import PromptEntry


class PromptOutputError(Exception):
    """A prompt handler returned something no client of this revision can be sent."""


class Prompts(Serving):
    """Answers prompts/get and completion/complete for ``prompts``; ``stamp`` is the
    2026-07-28 result ``_meta``, ``request_state`` seals a 2026-07-28 round's answers."""

    __slots__ = ("_jobs", "_validators", "by_name")

    def __init__(
        self,
        prompts: Sequence[PromptEntry],
        stamp: Mapping[str, Any],
        request_state: RequestStateSeal,
    ) -> None:
        super().__init__(stamp, request_state)
        self.by_name: dict[str, PromptEntry] = {}
        for prompt in prompts:
            if prompt.name in self.by_name:
                raise ValueError(f"two prompts are named {prompt.name!r}")
            self.by_name[prompt.name] = prompt
        self._validators = LazyValidators()
        self._jobs = {name: PromptJob(prompt) for name, prompt in self.by_name.items()}

    # ------------------------------------------------------------- prompts/get

    def get(self, request: RequestContext) -> Reply:
        params = request.params
        prompt = self._prompt(params.get("name"))
        kwargs = self._keyword_arguments(prompt, params.get("arguments"))
        # Bound to "prompt:NAME", so a requestState sealed for a tool of the same name and
        # arguments is not accepted here (nor the reverse).
        channel = self.channel(request, f"prompt:{prompt.name}")
        return self.run(self._jobs[prompt.name], kwargs, prompt.name, request, channel)

    def _prompt(self, name: Any) -> PromptEntry:
        if type(name) is not str:
            raise RpcError(INVALID_PARAMS, "prompts/get needs the prompt's name, a string")
        prompt = self.by_name.get(name)
        if prompt is None:
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {shorten(name)}", {"name": name})
        return prompt

    def _keyword_arguments(self, prompt: PromptEntry, arguments: Any) -> dict[str, Any]:
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise RpcError(
                INVALID_PARAMS, f"Invalid arguments for prompt {prompt.name}: not an object"
            )
        for key, value in arguments.items():
            if key not in prompt.arguments:
                known = ", ".join(map(repr, prompt.arguments)) or "none"
                raise _invalid(
                    prompt, key, f"not an argument of this prompt (its arguments: {known})"
                )
            if type(value) is not str:
                raise _invalid(prompt, key, "must be a string (prompt arguments are strings)")
            if key in prompt.schemas:
                reasons = self._validators.reasons((prompt.name, key), prompt.schemas[key], value)
                if reasons is not None:
                    raise _invalid(prompt, key, reasons)
        for key in prompt.arguments:
            if key in prompt.required and key not in arguments:
                raise RpcError(
                    INVALID_PARAMS,
                    f"Missing required argument {key!r} for prompt {prompt.name}",
                    {"argument": key},
                )
        return {prompt.arguments[key]: value for key, value in arguments.items()}

    # ------------------------------------------------------------- completion/complete

    def complete(self, request: RequestContext) -> Reply:
        """Completion of a prompt argument: by its completion handler, else its schema's
        enum values that start with what the user typed (core/completion.py)."""
        ref = request.params.get("ref")
        if type(ref) is not dict or ref.get("type") != "ref/prompt":
            kind = ref.get("type") if type(ref) is dict else None
            raise RpcError(
                INVALID_PARAMS,
                f"Cannot complete {shorten(repr(kind))}: this server completes prompt"
                ' arguments only (ref: {"type": "ref/prompt", "name": ...})',
            )
        prompt = self._prompt(ref.get("name"))
        return self.complete_argument(
            request,
            prompt.arguments,
            lambda name: _invalid(prompt, name, "not an argument of this prompt"),
            prompt.completers,
            prompt.completions,
        )


def prompt_result(value: Any, revision: Revision) -> dict[str, Any]:
    """The GetPromptResult body (without the stateless era's stamp) for a return value."""
    description = None
    if isinstance(value, PromptResult):
        messages: Any = value.messages
        description = value.description
    elif isinstance(value, str):
        messages = [value]
    elif isinstance(value, list | tuple):
        messages = value
    else:
        raise PromptOutputError(
            f"{type(value).__name__} is not a prompt; return text, a list of messages"
            " (user(...), assistant(...)) or a PromptResult"
        )
    shaped = [_message(message, index, revision) for index, message in enumerate(messages)]
    body: dict[str, Any] = {"messages": shaped}
    if description is not None:
        body["description"] = description
    return body


def _message(message: Any, index: int, revision: Revision) -> dict[str, Any]:
    if isinstance(message, str):
        message = user(message)
    if type(message) is not dict or message.get("role") not in ("user", "assistant"):
        raise PromptOutputError(
            f"messages[{index}] is not a message; make one with user(...) or assistant(...)"
        )
    block = message.get("content")
    kind = block.get("type") if type(block) is dict else None
    if kind not in revision.content:
        raise PromptOutputError(
            f"messages[{index}] holds {shorten(repr(kind))} content, which protocol revision"
            f" {revision.name} does not define in prompt messages (it has:"
            f" {', '.join(revision.content)})"
        )
    try:
        (converted,) = for_revision([block], revision)
    except Exception as exc:  # OutputError: a block lacking a field
        raise PromptOutputError(f"messages[{index}]: {exc}") from None
    return {"role": message["role"], "content": converted}


def _invalid(prompt: PromptEntry, argument: str, reason: str) -> RpcError:
    return RpcError(
        INVALID_PARAMS,
        f"Invalid arguments for prompt {prompt.name}: argument {shorten(repr(argument))} {reason}",
        {"argument": argument},
    )


class PromptJob:
    """A prompt as the call lifecycle runs it: a failure is a -32603 error, a return value
    becomes the revision's GetPromptResult."""

    __slots__ = ("handler", "is_async", "placement", "prompt")

    def __init__(self, prompt: PromptEntry) -> None:
        self.prompt = prompt
        self.handler: Callable[..., Any] = prompt.handler
        self.is_async = prompt.is_async
        self.placement = Placement(prompt.handler) if prompt.in_worker else None

    def failure(self, exc: BaseException) -> Any:
        raise handler_error(f"prompt {self.prompt.name!r}", f"Prompt {self.prompt.name}", exc)

    def response(
        self, value: Any, request_id: RequestId, revision: Revision, stamp: Mapping[str, Any]
    ) -> bytes:
        try:
            body = prompt_result(value, revision)
            return jsonrpc.result(request_id, revision.stamp(body, stamp))
        except PromptOutputError as exc:
            message = f"Prompt {self.prompt.name} returned an invalid result: {exc}"
        except Exception as exc:  # orjson refused it
            message = f"Prompt {self.prompt.name} returned a result that is not JSON data: {exc}"
        return jsonrpc.error(request_id, internal_error(message))
