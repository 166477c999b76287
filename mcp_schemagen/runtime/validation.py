"""Exact JSON Schema validation with jsonschema-rs; no ``$ref`` is ever fetched.

Validity is decided by JSON Schema alone (no coercion: ``"5"`` is not an integer).
The dialect is draft-07 when the schema's ``$schema`` says so, else 2020-12.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .shorten import shorten

# Arrays and objects within each other in a tool's arguments: deeper ones are refused
# before validation (jsonschema-rs stops at its recursion limit, about 255 levels, with
# an error that is no answer for the client).
MAX_DEPTH = 128

DRAFT7_URIS = frozenset(
    {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"}
)


class Validator(Protocol):
    def is_valid(self, instance: Any) -> bool: ...

    def iter_errors(self, instance: Any) -> Any: ...


def _refuse_retrieval(uri: str) -> Any:
    # The build already rejects external references; this is the second lock on the door.
    raise ValueError(f"external $ref {uri!r} is never retrieved")


def compile_validator(schema: Mapping[str, Any] | bool) -> Validator:
    dialect = schema.get("$schema") if isinstance(schema, Mapping) else None
    draft7 = dialect in DRAFT7_URIS
    # Loaded with the first validator, which is compiled on a tool's first call: an idle
    # server does not hold the library (8 MiB) or pay for loading it at start-up.
    import jsonschema_rs

    cls = jsonschema_rs.Draft7Validator if draft7 else jsonschema_rs.Draft202012Validator
    # The retriever replaces jsonschema-rs's default one (network and file), so nothing is
    # ever fetched. It must stand alone: jsonschema-rs rejects `offline=True` together with
    # a `retriever` (ValueError at construction, for every schema).
    # `format` is an annotation, as in python-jsonschema and the required test suite; pinned
    # here because jsonschema-rs's default differs between its draft-07 and 2020-12 classes.
    document = dict(schema) if isinstance(schema, Mapping) else schema
    validator: Validator = cls(document, retriever=_refuse_retrieval, validate_formats=False)
    return validator


def _location(path: list[str | int]) -> str:
    if not path:
        return "the arguments"
    return "argument " + "".join(
        f"[{p}]" if isinstance(p, int) else (f"'{p}'" if i == 0 else f".{p}")
        for i, p in enumerate(path)
    )


def describe_errors(validator: Validator, instance: Any, *, limit: int = 10) -> list[str]:
    """Human- and model-readable messages: which value, and what was expected."""
    messages: list[str] = []
    for failure in validator.iter_errors(instance):
        keyword = failure.schema_path[-1] if failure.schema_path else "schema"
        # The message quotes the offending value, which the client chose: cut it short.
        where = shorten(_location(list(failure.instance_path)))
        messages.append(f"{where}: {shorten(failure.message)} ({keyword})")
        if len(messages) == limit:
            break
    return sorted(messages)


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels in ``value`` (counted
    without recursion, so any depth the JSON parser admits is measured)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        for child in node.values() if type(node) is dict else node:
            kind = type(child)
            if kind is dict or kind is list:
                if depth >= limit:
                    return True
                stack.append((child, depth + 1))
    return False


def too_deep(value: Any) -> list[str] | None:
    """The validation problem of arguments nested beyond ``MAX_DEPTH``, or None."""
    if not nested_deeper_than(value, MAX_DEPTH):
        return None
    return [
        f"the arguments: arrays and objects nest more than {MAX_DEPTH} levels deep, "
        f"the most this server accepts (depth)"
    ]


class LazyValidators:
    """Validators of named strings (prompt arguments, template variables), each compiled
    on first use, as a tool's are, and kept by ``key``."""

    __slots__ = ("_by_key",)

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], Validator] = {}

    def reasons(self, key: tuple[str, str], schema: Mapping[str, Any], value: Any) -> str | None:
        """Why ``value`` fails ``schema`` (the paths left out: the value is one string),
        or None when it is valid."""
        validator = self._by_key.get(key)
        if validator is None:
            validator = self._by_key[key] = compile_validator(schema)
        if validator.is_valid(value):
            return None
        problems = describe_errors(validator, value)
        return "; ".join(p.split(": ", 1)[-1] for p in problems) or "does not match its schema"
