"""A merge formats the generated source it needs (changed signatures, new stubs, the
import block) in one ruff process, however many handlers change."""

from __future__ import annotations

import pytest

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, apply, merge, render_new
from mcp_schemagen.render import formatting

COUNT = 8


def _spec(kind: str, extra: int = 0) -> HandlerModuleSpec:
    handlers = tuple(
        HandlerSpec(f"tool_{n}", f"tool_{n}", f"*, value_{n}: {kind}", "str", None)
        for n in range(COUNT + extra)
    )
    return HandlerModuleSpec('"""Handlers."""', "", handlers)


def test_every_changed_signature_and_new_stub_is_formatted_by_one_ruff_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = render_new(_spec("int"))
    calls: list[list[str]] = []
    run = formatting._run

    def counting(arguments: list[str], folder: str, source: bytes | None = None) -> bytes:
        calls.append(list(arguments))
        return run(arguments, folder, source)

    monkeypatch.setattr(formatting, "_run", counting)
    monkeypatch.setattr(apply, "_FORMATTED", {})  # nothing formatted by an earlier test
    result = merge(before, _spec("str", extra=2))  # every signature changes, two are new
    assert result.text.count(": str) -> str:") == COUNT + 2
    assert [call[0] for call in calls] == ["format"]
