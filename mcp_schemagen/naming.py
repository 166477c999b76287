"""Python identifiers and literals from schema text: keywords, collisions, Unicode, escaping.

Everything that turns untrusted schema text into Python source goes through here, so
templates only print what this module made safe.
"""

from __future__ import annotations

import keyword
import re
import unicodedata

_NOT_IDENTIFIER_CHAR = re.compile(r"[^A-Za-z0-9_]")
_WORD = re.compile(r"[A-Za-z0-9]+")


def python_identifier(name: str) -> str:
    """An ASCII identifier for ``name``: NFKC first (as Python's parser would do), then every
    other character becomes ``_``; keywords and a leading digit get an ``_``."""
    text = _NOT_IDENTIFIER_CHAR.sub("_", unicodedata.normalize("NFKC", name))
    if not text:
        text = "_"
    if text[0].isdigit():
        text = "_" + text
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        text += "_"
    return text


def pascal_case(name: str) -> str:
    """``get_weather`` and ``get-weather.v2`` -> ``GetWeather``, ``GetWeatherV2``; inner
    capitals are kept (``getWeather`` -> ``GetWeather``)."""
    words = _WORD.findall(unicodedata.normalize("NFKC", name))
    text = "".join(w[0].upper() + w[1:] for w in words) or "Tool"
    return "_" + text if text[0].isdigit() else text


def string_literal(text: str) -> str:
    """A Python string literal meaning exactly ``text``, ASCII only: quotes, backslashes,
    newlines and bidi controls are escaped, so nothing in it can end the literal or
    reorder how the source reads."""
    return "".join(_escape(c) for c in text).join('""')


def comment_text(text: str) -> str:
    """``text`` made safe for a ``#`` comment of generated code, ASCII only: a line break
    (``\\n``, a bare ``\\r``, U+2028...) would end the comment and start a statement, and a
    bidi control would reorder how the source reads, so every character outside printable
    ASCII is escaped exactly as in string_literal."""
    return "".join(c if 0x20 <= ord(c) < 0x7F else _escape(c) for c in text)


_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def printable_text(text: str) -> str:
    """``text`` for a terminal: line breaks, controls, bidi controls and lone surrogates
    (file names that are not UTF-8) escaped as in string_literal, other characters kept."""
    return "".join(_escape(c) if unicodedata.category(c) in _UNPRINTABLE else c for c in text)


def _escape(char: str) -> str:
    if char in '"\\':
        return "\\" + char
    if 0x20 <= ord(char) < 0x7F:
        return char
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char) or (
        f"\\x{ord(char):02x}"
        if ord(char) < 0x100
        else f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}"
    )


def docstring_literal(text: str, indent: str = "    ") -> str:
    """A triple-quoted docstring meaning exactly ``text`` (stripped), escaped like
    string_literal but keeping real line breaks, indented by ``indent``."""
    lines = text.strip().replace("\r\n", "\n").split("\n")
    body = f"\n{indent}".join("".join(_escape(c) for c in line) for line in lines)
    if len(lines) > 1:
        body += f"\n{indent}"
    return f'"""{body}"""'
