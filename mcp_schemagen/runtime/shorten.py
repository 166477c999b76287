"""Client-supplied text quoted back in an error message, cut to a readable size.

A client controls tool names, method names, log levels and argument values; an error
message that echoed them whole would let a 5 MB string come back as a 5 MB error (and a
model read it). The start and the end stay, since a validation message names the value
first and what was expected last.
"""

from __future__ import annotations

MAX_ECHO = 240  # characters of one quoted message or value
_HEAD = 150


def shorten(text: str, limit: int = MAX_ECHO) -> str:
    """``text`` itself when it is at most ``limit`` characters, else its start and end
    around a note of how much was left out."""
    if len(text) <= limit:
        return text
    head = min(_HEAD, limit * 5 // 8)
    tail = max(limit - head, 0)
    omitted = len(text) - head - tail
    return f"{text[:head]}…[{omitted} characters omitted]…{text[len(text) - tail :]}"
