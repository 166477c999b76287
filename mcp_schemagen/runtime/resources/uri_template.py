"""RFC 6570 URI templates (levels 1 to 4): parsed exactly, and matched against a concrete
URI to recover the variables (the reverse of expansion), as resources/read needs.

    template = UriTemplate.parse("file:///logs/{date}{?level,limit}")
    template.match("file:///logs/2025-01-02?limit=5")  # {"date": "2025-01-02", "limit": "5"}
    template.expand({"date": "2025-01-02", "limit": "5"})  # the URI again (a client's side)

Matching is exact: a variable matches only what expanding it could produce (unreserved
characters and percent-escapes for most operators, reserved characters too for ``+`` and
``#``), each value is percent-decoded, and a URI that is not an expansion of the template
does not match (None). A variable that is the first of a simple or ``+`` expression is
always present and must be non-empty (``users/`` is not ``users/{id}``); every other
variable may be absent. A query (``{?a,b}``, ``{&c}``) is read by name, in any order, and
a query parameter the template does not name makes the URI not match. An exploded
variable (``{/path*}``) is one string, its separators kept (``/a/b`` gives ``"a/b"``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, unquote

_OPERATORS = "+#./;?&"
_RESERVED_OPERATORS = "=,!@|"  # reserved by RFC 6570 for future extensions
_VARNAME = re.compile(r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*")
_LITERAL_BAD = set(" \"'<>\\^`{|}")
_PCT = r"%[0-9A-Fa-f]{2}"
_UNRESERVED = rf"(?:[A-Za-z0-9\-._~]|{_PCT})"
_RESERVED = rf"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|{_PCT})"
_QUERY_VALUE = re.compile(f"{_UNRESERVED}*")
# (prefix, separator, named, characters a value may hold) of each operator (RFC 6570 3.2)
_RULES = {
    "": ("", ",", False, _UNRESERVED),
    "+": ("", ",", False, _RESERVED),
    "#": ("#", ",", False, _RESERVED),
    ".": (".", ".", False, rf"(?:[A-Za-z0-9\-_~]|{_PCT})"),
    "/": ("/", "/", False, _UNRESERVED),
    ";": (";", ";", True, _UNRESERVED),
    "?": ("?", "&", True, _UNRESERVED),
    "&": ("&", "&", True, _UNRESERVED),
}


class UriTemplateError(ValueError):
    """A template that is not RFC 6570; ``position`` is the character where it goes wrong."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} (at character {position + 1})")
        self.position = position


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    operator: str
    explode: bool
    prefix: int | None
    required: bool  # always present in a matching URI


@dataclass(frozen=True, slots=True)
class UriTemplate:
    text: str
    variables: tuple[Variable, ...]
    _pattern: re.Pattern[str]
    _groups: tuple[tuple[str, Variable], ...]  # regex group -> variable (not queries)
    _query_groups: tuple[str, ...]
    # literal text, or one expression: (operator, its variables), in template order
    _parts: tuple[str | tuple[str, tuple[Variable, ...]], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variables)

    @classmethod
    def parse(cls, text: str) -> UriTemplate:
        """The template ``text``; ``UriTemplateError`` when it is not RFC 6570."""
        variables: list[Variable] = []
        regex: list[str] = []
        groups: list[tuple[str, Variable]] = []
        queries: list[str] = []
        parts: list[str | tuple[str, tuple[Variable, ...]]] = []
        seen: set[str] = set()
        position = 0
        while position < len(text):
            start = text.find("{", position)
            end_brace = text.find("}", position)
            if end_brace != -1 and (start == -1 or end_brace < start):
                raise UriTemplateError("'}' without an opening '{'", end_brace)
            literal_end = len(text) if start == -1 else start
            regex.append(_literal(text, position, literal_end))
            parts.append(text[position:literal_end])
            if start == -1:
                break
            end = text.find("}", start)
            if end == -1:
                raise UriTemplateError("'{' is never closed", start)
            body = text[start + 1 : end]
            if "{" in body:
                raise UriTemplateError("'{' inside an expression", start + 1 + body.index("{"))
            operator = body[:1] if body[:1] and body[0] in _OPERATORS else ""
            if body[:1] and body[0] in _RESERVED_OPERATORS:
                raise UriTemplateError(f"operator {body[0]!r} is reserved by RFC 6570", start + 1)
            specs = body[len(operator) :].split(",")
            expression: list[Variable] = []
            for index, spec in enumerate(specs):
                variable = _variable(spec, operator, index == 0, start)
                if variable.name in seen:
                    raise UriTemplateError(f"variable {variable.name!r} appears twice", start)
                seen.add(variable.name)
                expression.append(variable)
            variables += expression
            parts.append((operator, tuple(expression)))
            if operator in "?&" and operator:
                group = f"q{len(queries)}"
                queries.append(group)
                lead = re.escape(operator)
                regex.append(f"(?:{lead}(?P<{group}>[^#]*))?")
            else:
                regex.append(_expression(expression, operator, groups))
            position = end + 1
        pattern = re.compile("".join(regex), re.DOTALL)
        return cls(text, tuple(variables), pattern, tuple(groups), tuple(queries), tuple(parts))

    def expand(self, values: Mapping[str, str | None]) -> str:
        """The URI of ``values`` (RFC 6570 3.2, string values; None or absent: undefined),
        the inverse of ``match``: ``match(expand(v))`` gives ``v`` back for values that
        satisfy the template (a required variable non-empty, a prefix not exceeded; an empty
        ``;`` value comes back absent, as ``;name`` carries none). An
        exploded variable's value is split at its operator's separator (``"a/b"`` for
        ``{/path*}`` gives ``/a/b``), as ``match`` joins it."""
        uri: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                uri.append(part)
                continue
            operator, expression = part
            lead, separator, named, _ = _RULES[operator]
            pieces: list[str] = []
            for variable in expression:
                value = values.get(variable.name)
                if value is None:
                    continue
                if variable.prefix is not None:
                    value = value[: variable.prefix]
                if variable.explode and not named:
                    encoded = separator.join(_encode(v, operator) for v in value.split(separator))
                else:
                    encoded = _encode(value, operator)
                if named:
                    empty = "" if operator == ";" else "="
                    encoded = variable.name + (f"={encoded}" if encoded else empty)
                pieces.append(encoded)
            if pieces:
                uri.append(lead + separator.join(pieces))
        return "".join(uri)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of ``uri`` (percent-decoded; absent ones left out), or None when
        ``uri`` is not an expansion of this template."""
        found = self._pattern.fullmatch(uri)
        if found is None:
            return None
        values: dict[str, str] = {}
        try:
            for group, variable in self._groups:
                raw = found.group(group)
                if raw is None:
                    continue
                value = unquote(raw, errors="strict")
                if variable.prefix is not None and len(value) > variable.prefix:
                    return None
                values[variable.name] = value
            named = {v.name: v for v in self.variables if v.operator in "?&" and v.operator}
            for group in self._query_groups:
                raw = found.group(group)
                if raw is None or raw == "":
                    continue
                for pair in raw.split("&"):
                    name, has_value, value = pair.partition("=")
                    wanted = named.get(name)
                    if wanted is None or name in values:
                        return None
                    if not _QUERY_VALUE.fullmatch(value):
                        return None
                    values[name] = unquote(value, errors="strict") if has_value else ""
        except UnicodeDecodeError:
            return None
        return values


def _literal(text: str, start: int, end: int) -> str:
    chunk = text[start:end]
    for offset, char in enumerate(chunk):
        if char in _LITERAL_BAD or ord(char) < 0x20 or ord(char) == 0x7F:
            raise UriTemplateError(f"{char!r} may not appear outside an expression", start + offset)
        if char == "%" and not re.match(_PCT, chunk[offset:]):
            raise UriTemplateError("'%' not followed by two hex digits", start + offset)
    return re.escape(chunk)


def _variable(spec: str, operator: str, first: bool, at: int) -> Variable:
    explode = spec.endswith("*")
    name, _, prefix_text = spec.removesuffix("*").partition(":")
    if not _VARNAME.fullmatch(name):
        raise UriTemplateError(
            f"{spec!r} is not a variable name (letters, digits, _, %XX, dots between)", at
        )
    prefix = None
    if prefix_text or spec.removesuffix("*").endswith(":"):
        if explode or not prefix_text.isascii() or not prefix_text.isdigit():
            raise UriTemplateError(f"{spec!r}: a prefix is ':' and 1 to 4 digits, no '*'", at)
        prefix = int(prefix_text)
        if not 0 < prefix < 10000 or prefix_text.startswith("0"):
            raise UriTemplateError(f"{spec!r}: a prefix length is 1 to 9999", at)
    required = first and operator in ("", "+")
    return Variable(name, operator, explode, prefix, required)


def _expression(
    expression: list[Variable], operator: str, groups: list[tuple[str, Variable]]
) -> str:
    lead, separator, named, chars = _RULES[operator]
    parts = []
    for index, variable in enumerate(expression):
        group = f"v{len(groups)}"
        groups.append((group, variable))
        value = chars
        if variable.explode:  # the separator may repeat inside the value
            value = f"(?:{chars}|{re.escape(separator)})"
        if named:
            capture = f"{re.escape(variable.name)}(?:=(?P<{group}>{value}*?))?"
        else:
            capture = f"(?P<{group}>{value}{'+' if variable.required else '*'}?)"
        piece = re.escape(lead if index == 0 else separator) + capture
        parts.append(piece if variable.required else f"(?:{piece})?")
    return "".join(parts)


def _encode(value: str, operator: str) -> str:
    """``value`` percent-encoded for ``operator``: reserved characters and existing
    %XX escapes pass for ``+`` and ``#``; otherwise only unreserved characters do, and
    ``.`` is escaped after ``.`` too, since there it separates values."""
    if operator in ("+", "#"):
        return "".join(
            chunk if re.fullmatch(_PCT, chunk) else quote(chunk, safe=":/?#[]@!$&'()*+,;=")
            for chunk in re.split(f"({_PCT})", value)
        )
    encoded = quote(value, safe="")
    return encoded.replace(".", "%2E") if operator == "." else encoded
