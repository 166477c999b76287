"""What a handler asks the client, and what it gets back: the requests (``Elicit``,
``Sample``, ``ListRoots``) with their form in each revision and the capability each
needs, the typed answers, and (from errors.py) the errors asking can end in. How a
question travels is interaction.py's job. Imported when a handler first asks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NotRequired, TypedDict

from ..protocol import Revision
from ..validation import compile_validator, describe_errors
from .errors import ClientCapabilityMissing as ClientCapabilityMissing
from .errors import ClientError as ClientError
from .errors import ClientTimeout as ClientTimeout
from .errors import InteractionError as InteractionError
from .errors import InvalidAnswer as InvalidAnswer

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


# ------------------------------------------------------------------ what a handler asks


class Question:
    """One question for the client (a request this server sends it, not one it received):
    its ``method``, its ``params`` in each revision's form, the capability it needs, and
    how its answer is read (``parse``)."""

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
        return needed is None or declares(capabilities, needed[0])


@dataclass(frozen=True, slots=True)
class Elicit(Question):
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
class Sample(Question):
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
class ListRoots(Question):
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


# ------------------------------------------------------------------ helpers


def form(
    fields: Mapping[str, Mapping[str, Any]], *, required: Sequence[str] = ()
) -> dict[str, Any]:
    """An elicitation form: ``form({"ok": boolean("Delete it?")}, required=["ok"])``."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(fields)}
    if required:
        schema["required"] = list(required)
    return schema


def declares(capabilities: Mapping[str, Any], needed: Mapping[str, Any]) -> bool:
    for name, sub in needed.items():
        declared = capabilities.get(name)
        if type(declared) is not dict:
            return False
        if name == "elicitation" and not sub and "url" in declared and "form" not in declared:
            return False  # URL mode only (``elicitation: {}`` alone declares form mode)
        if not declares(declared, sub):
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
