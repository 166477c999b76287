"""A ``**kwargs`` the user adds to a handler is theirs: every signature update keeps it,
since the server passes it the arguments the schema allows beyond the parameters."""

from __future__ import annotations

import pytest

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, MergeConflict, merge, render_new

IMPORTS = "from .types import Report, Units"


def weather(parameters: str) -> HandlerModuleSpec:
    handler = HandlerSpec("get_weather", "get_weather", parameters, "Report", '"""Weather."""')
    return HandlerModuleSpec('"""Handlers."""', IMPORTS, [handler])


BEFORE = weather("*, city: str")
AFTER = weather("*, city: str, units: Units = 'c'")


def with_kwargs(text: str, kwargs: str = "**extra: Any") -> str:
    user = text.replace("(*, city: str)", f"(*, city: str, {kwargs})")
    assert user != text
    return "from typing import Any\n\n" + user


def test_an_unchanged_signature_keeps_the_users_kwargs_untouched() -> None:
    text = with_kwargs(render_new(BEFORE))
    result = merge(text, BEFORE)
    assert result.text == text and result.warnings == []


def test_a_signature_update_keeps_the_users_kwargs() -> None:
    text = with_kwargs(render_new(BEFORE), "**extra: dict[str,   Any]")
    text = text.replace('    """Weather."""\n', '    """Weather."""\n    return str(extra)\n')
    result = merge(text, AFTER)
    assert (
        'def get_weather(*, city: str, units: Units = "c", **extra: dict[str, Any]) -> Report:'
        in result.text
    )
    assert result.warnings == []  # the body still reads `extra`: it did not leave
    assert merge(result.text, AFTER).text == result.text  # and the next build is a no-op


def test_kwargs_named_like_a_new_parameter_is_a_conflict() -> None:
    text = with_kwargs(render_new(BEFORE), "**units: Any")
    with pytest.raises(MergeConflict, match=r"\*\*units .* rename"):
        merge(text, AFTER)
