"""Decoding client messages with every integer exact.

orjson reads an integer beyond 64 bits as a float: an argument of ``2**64`` would then
fail an ``integer`` schema, and a request id of that size would not be an id at all. Such
a number has at least 19 digits in a row; only a message holding a run that long is read
again by the standard parser, which keeps integers exact. orjson still decides what is
valid JSON (NaN, lone surrogates, bad UTF-8 stay refused), so both paths accept the same
messages and the common one costs a single scan.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

JSONDecodeError = orjson.JSONDecodeError

# 19 digits: the shortest integers orjson cannot hold (2**63 has 19, 2**64 has 20); a
# shorter run never needs the second parse.
_LONG_DIGITS_BYTES = re.compile(rb"\d{19}")
_LONG_DIGITS_TEXT = re.compile(r"\d{19}")
_DIGITS = b"0123456789"


def loads(raw: bytes | bytearray | memoryview | str) -> Any:
    """Like ``orjson.loads``, with integers of any size exact."""
    value = orjson.loads(raw)
    if isinstance(raw, str):
        if _LONG_DIGITS_TEXT.search(raw) is None:
            return value
        text: str | bytes = raw
    elif _few_digits(raw) or _LONG_DIGITS_BYTES.search(raw) is None:
        return value
    else:
        text = bytes(raw)
    try:
        return json.loads(text)
    except RecursionError:  # nested deeper than Python recurses: orjson's reading stands
        return value


def _few_digits(raw: bytes | bytearray | memoryview) -> bool:
    """Fewer than 19 digits in all, so no run of 19: counted in one pass in C, about a
    fifth of what the search costs (2 µs on a tools/call, twice orjson's parse of it)."""
    return type(raw) is bytes and len(raw) - len(raw.translate(None, _DIGITS)) < 19


def dumps(value: Any) -> bytes:
    """``orjson.dumps``, and the standard encoder for what holds an integer beyond 64 bits
    (which orjson refuses); anything else orjson refuses stays refused."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        if not _beyond_64_bits(value):
            raise
    try:
        return json.dumps(
            value, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        ).encode()
    except (TypeError, ValueError) as failure:
        raise orjson.JSONEncodeError(str(failure)) from None


def _beyond_64_bits(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return not -(2**63) <= value < 2**64
    if kind is dict:
        return any(_beyond_64_bits(v) for v in value.values())
    if kind is list or kind is tuple:
        return any(_beyond_64_bits(v) for v in value)
    return False
