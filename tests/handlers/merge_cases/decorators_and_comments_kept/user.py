"""Handlers of the weather server: fill in the bodies."""

from __future__ import annotations

import functools
from collections.abc import Callable

from .types import Units


def traced(fn: Callable[..., str]) -> Callable[..., str]:
    return fn


# Weather tools
# =============


# The hot path: keep it cached.
# mcp-codegen tool: "get_weather"
@traced  # logs every call
# between decorators
@functools.cache
def get_weather(*, city: str, units: Units = "celsius") -> str:
    """Current weather for a city.

    Long docstring, with "quotes" and a \\ backslash.
    """
    # comment first in the body
    result = f"sunny in {city}"  # trailing comment
    # comment between statements

    return result
    # comment at the end of the body


# mcp-codegen tool: "ping"
@traced
def ping() -> str: return "pong"  # one-line body
# a dedented comment after the last handler
