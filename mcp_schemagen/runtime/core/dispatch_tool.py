"""One tool, ready to call: validators compiled, arguments mapped, results shaped.

``registry.ToolEntry`` is a tool as the generator compiled it; ``DispatchTool`` is that
entry as the server serves it (the generator's own ``ir.Tool`` is a third thing, never
seen here)."""

from __future__ import annotations

import copy
import inspect
import sys
import traceback
from collections.abc import Mapping
from typing import Any

from .. import jsonrpc
from ..jsonrpc import RequestId, RpcError
from ..protocol import Revision
from ..registry import ToolEntry
from ..result import UNSET, ToolError, ToolResult
from ..shorten import shorten
from ..validation import Validator, compile_validator, describe_errors, too_deep
from ..workers import Placement, runs_in_worker
from .conversion import (
    OutputError,
    content_of,
    data_of,
    for_revision,
    json_text,
    json_value,
    text_block,
)
from .lifecycle import internal_error

_IMMUTABLE = (str, int, float, bool, type(None))
_NO_NAMES: frozenset[str] = frozenset()


class DispatchTool:
    """A ToolEntry compiled for serving."""

    __slots__ = (
        "_defaults",
        "_dropped_told",
        "_input_validator",
        "_keys",
        "_output_validator",
        "_renames",
        "_shadowed",
        "_takes_extra",
        "_whole",
        "entry",
        "handler",
        "has_output_schema",
        "in_worker",
        "is_async",
        "name",
        "placement",
    )

    def __init__(self, entry: ToolEntry) -> None:
        self.entry = entry
        self.name = entry.name
        self.handler = entry.handler
        self.is_async = inspect.iscoroutinefunction(entry.handler)
        self.in_worker = runs_in_worker(entry.handler, self.is_async)
        # Where a sync handler runs now: in workers until its calls prove quick.
        self.placement = Placement(entry.handler) if self.in_worker else None
        # Validators are compiled on a tool's first call, not at start-up: a server with
        # hundreds of tools starts in milliseconds and holds only the ones it uses. The
        # build compiled every schema with the same options, so none fails here later.
        self._input_validator: Validator | None = None
        self._output_validator: Validator | None = None
        self.has_output_schema = entry.output_schema is not None
        # How arguments become keyword arguments: worked out on the tool's first call
        # too (a server with hundreds of tools builds hundreds of these at start-up).
        self._keys: frozenset[str] | None = None
        self._whole: str | None = None
        self._renames = False
        self._defaults: tuple[tuple[str, Any, bool], ...] = ()
        self._takes_extra = False
        self._shadowed = _NO_NAMES
        self._dropped_told = False

    def _map_arguments(self) -> frozenset[str]:
        entry = self.entry
        self._whole = entry.whole_arguments
        # JSON names that are already the Python names need no copy of the arguments.
        self._renames = any(k != v for k, v in entry.arguments.items())
        self._defaults = tuple(
            (key, value, not isinstance(value, _IMMUTABLE)) for key, value in entry.defaults.items()
        )
        # A handler with **kwargs receives the arguments it does not declare (those the
        # schema allows), by their JSON names; one that a declared parameter's Python name
        # would shadow (JSON "class_" beside "class" -> class_) is refused, never dropped.
        keys = frozenset(entry.arguments)
        self._takes_extra = _has_var_keyword(entry.handler)
        if self._takes_extra:
            self._shadowed = frozenset(entry.arguments.values()) - keys
        self._keys = keys  # last: set, it says the rest is
        return keys

    @property
    def validator(self) -> Validator:
        validator = self._input_validator
        if validator is None:
            validator = self._input_validator = compile_validator(self.entry.input_schema)
        return validator

    @property
    def output_validator(self) -> Validator | None:
        if not self.has_output_schema:
            return None
        validator = self._output_validator
        if validator is None:
            schema = self.entry.output_schema
            assert schema is not None
            validator = self._output_validator = compile_validator(schema)
        return validator

    def invalid(self, arguments: dict[str, Any]) -> list[str] | None:
        """None when the arguments are valid, else what is wrong with them."""
        deep = too_deep(arguments)
        if deep is not None:
            return deep
        if self.validator.is_valid(arguments):
            if self._keys is None:
                self._map_arguments()
            if self._shadowed and not self._shadowed.isdisjoint(arguments):
                return self._shadowing(arguments)
            return None
        return describe_errors(self.validator, arguments) or ["the arguments are invalid"]

    def _shadowing(self, arguments: dict[str, Any]) -> list[str]:
        by_python = {python: json for json, python in self.entry.arguments.items()}
        return [
            f"argument {shorten(repr(key))}: not a parameter of this tool; the handler's"
            f" parameter {key} receives argument {by_python[key]!r}"
            for key in sorted(self._shadowed.intersection(arguments))
        ]

    def keyword_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The handler's keyword arguments: defaults filled in (fresh copies), JSON names
        mapped to Python names. Arguments the handler does not declare go to its
        ``**kwargs`` under their JSON names; without one they are dropped, and the server
        says so on stderr (once per tool)."""
        keys = self._keys
        if keys is None:
            keys = self._map_arguments()
        for key, value, mutable in self._defaults:
            if key not in arguments:
                arguments[key] = copy.deepcopy(value) if mutable else value
        if self._whole is not None:
            return {self._whole: arguments}
        if not self._renames and arguments.keys() <= keys:
            return arguments
        names = self.entry.arguments
        declared = {names[k]: v for k, v in arguments.items() if k in names}
        if len(declared) == len(arguments):
            return declared
        extra = {k: v for k, v in arguments.items() if k not in names}
        if self._takes_extra:
            return {**declared, **extra}
        if not self._dropped_told:
            self._dropped_told = True
            listed = shorten(", ".join(map(repr, extra)))
            print(
                f"tool {self.name!r}: arguments {listed} are not parameters of its handler and"
                " were not passed to it (this is said once); add **kwargs to the handler to"
                " receive the arguments its schema allows beyond its parameters",
                file=sys.stderr,
            )
        return declared

    def failure(self, exc: BaseException) -> ToolResult:
        """A handler exception as the model sees it: an isError result with its message."""
        if not isinstance(exc, ToolError):  # an expected failure needs no traceback
            print(f"tool {self.name!r} raised:", file=sys.stderr)
            traceback.print_exception(exc, file=sys.stderr)
        message = _text_of(exc)
        if isinstance(exc, NotImplementedError):
            message = f"Tool {self.name} is not implemented yet ({message})"
        return ToolResult(content=[message], is_error=True)

    def response(
        self, value: Any, request_id: RequestId, revision: Revision, stamp: Mapping[str, Any]
    ) -> bytes:
        """The JSON-RPC response to a finished call; never raises, so every call gets one."""
        try:
            return jsonrpc.result(request_id, revision.stamp(self.result(value, revision), stamp))
        except RpcError as failure:
            return jsonrpc.error(request_id, failure)
        except Exception as exc:  # orjson refused it: an object, an integer beyond 64 bits
            traceback.print_exception(exc, file=sys.stderr)
            unsendable = internal_error(
                f"Tool {self.name} returned a result that is not JSON data: {shorten(str(exc))}"
            )
            return jsonrpc.error(request_id, unsendable)

    def result(self, value: Any, revision: Revision) -> dict[str, Any]:
        """The CallToolResult body (without the stateless era's stamp) for a return value."""
        if type(value) is str and not self.has_output_schema:
            return revision.text_result(value)  # the common case, fast
        try:
            return self._result(value, revision)
        except OutputError as exc:
            raise internal_error(f"Tool {self.name} returned an invalid result: {exc}") from None

    def _result(self, value: Any, revision: Revision) -> dict[str, Any]:
        is_error = False
        data = UNSET
        if isinstance(value, ToolResult):
            content = content_of(list(value.content))
            structured = json_value(value.structured)
            is_error = value.is_error
        elif self.has_output_schema:
            content = []
            structured = json_value(value)
        else:
            data = data_of(value)
            content = content_of(value) if data is UNSET else [text_block(json_text(data))]
            structured = UNSET
        if self.has_output_schema and not is_error:
            self._check_output(structured)
        if structured is not UNSET and not content:
            content = [text_block(json_text(structured))]
        return revision.call_result(for_revision(content, revision), structured, is_error, data)

    def _check_output(self, structured: Any) -> None:
        validator = self.output_validator
        assert validator is not None
        if structured is UNSET:
            raise internal_error(
                f"Tool {self.name} returned no structured content, but it declares an outputSchema"
            )
        try:
            valid = validator.is_valid(structured)
        except (ValueError, TypeError) as exc:
            raise internal_error(f"Tool {self.name} returned non-JSON data: {exc}") from None
        if not valid:
            errors = describe_errors(validator, structured)
            raise internal_error(
                f"Tool {self.name} returned structured content not matching its outputSchema",
                {"errors": [_about_result(e) for e in errors]},
            )


def _has_var_keyword(handler: Any) -> bool:
    target = inspect.unwrap(handler)  # a decorator's own (*args, **kwargs) says nothing
    code = getattr(target, "__code__", None)
    if code is not None and not hasattr(target, "__signature__"):
        return bool(code.co_flags & inspect.CO_VARKEYWORDS)  # cheap: no Signature at start-up
    try:
        parameters = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: it declares nothing
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _text_of(exc: BaseException) -> str:
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # a broken __str__ must not cost the client its reply
        return type(exc).__name__


def _about_result(message: str) -> str:
    # describe_errors speaks of arguments; here the instance is the structured result.
    if message.startswith("argument "):
        return "result field " + message[len("argument ") :]
    return message.replace("the arguments", "the result", 1)
