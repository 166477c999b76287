"""The table of kinds drives the build: what a row says (its files, reader, checks,
marker) is what loading, checking, the build record and the handler merge do."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen import kinds
from mcp_schemagen.diagnostics import Diagnostic, Level, warning
from mcp_schemagen.handlers.spec import marker_key
from mcp_schemagen.handlers.stubs import marker_comment, marker_prefix
from mcp_schemagen.kind_sources import checked_sources
from mcp_schemagen.load.config import Config, load_config
from mcp_schemagen.record.fingerprint import input_digests
from mcp_schemagen.source import Source
from tests.support.projects import tool, write_project


def _project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    (root / "prompts").mkdir()
    (root / "prompts" / "greet.json").write_text(json.dumps({"name": "greet"}))
    (root / "resources").mkdir()
    both = [
        {"uri": "app://readme", "name": "readme", "mimeType": "text/markdown"},
        {"uriTemplate": "app://users/{id}", "name": "user"},
    ]
    (root / "resources" / "r.json").write_text(json.dumps(both))
    return root


def test_each_definition_is_read_as_the_kind_of_its_row(tmp_path: Path) -> None:
    sources, _ = checked_sources(load_config(_project(tmp_path)))
    assert [(s.kind, s.file, s.pointer) for s in sources] == [
        ("tool", "tools/echo.json", ""),
        ("prompt", "prompts/greet.json", ""),
        ("resource", "resources/r.json", "/0"),
        ("resource template", "resources/r.json", "/1"),
    ]


def test_a_new_row_is_read_checked_and_fingerprinted_by_the_table_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind the pipeline has never heard of, given files (here the prompts' key), a
    reader and checks by its row: its definitions are loaded and checked, its files are
    inputs of the build record, and its marker is a marker the merge knows."""
    root = _project(tmp_path)
    (root / "prompts" / "plan.yaml").write_text("name: plan\n")

    def read(document: Any, label: str) -> tuple[list[Source], list[Diagnostic]]:
        return [Source("skill", label, "", document)], []

    def check(
        sources: Sequence[Source], config: Config, loaded: Sequence[Diagnostic]
    ) -> list[Diagnostic]:
        return [warning(s.file, "/name", f"skill {s.name} checked") for s in sources]

    skill = kinds.Kind("skill", "skills", "skills/list", "prompts", read, check, "skill")
    rows = (*(k for k in kinds.KINDS if k.name != "prompt"), skill)
    monkeypatch.setattr(kinds, "KINDS", rows)
    sources, problems = checked_sources(load_config(root))
    assert [(s.kind, s.name) for s in sources if s.kind == "skill"] == [
        ("skill", "greet"),
        ("skill", "plan"),
    ]
    assert [(d.level, d.file, d.message) for d in problems] == [
        (Level.WARNING, "prompts/greet.json", "skill greet checked"),
        (Level.WARNING, "prompts/plan.yaml", "skill plan checked"),
    ]
    assert "prompts/plan.yaml" in input_digests(load_config(root))
    # Without the row its files are no input at all.
    monkeypatch.setattr(kinds, "KINDS", tuple(k for k in rows if k.name != "skill"))
    assert "prompts/plan.yaml" not in input_digests(load_config(root))


def test_a_required_kind_without_files_is_an_error_at_its_config_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    (root / "tools" / "echo.json").unlink()
    _, problems = checked_sources(load_config(root))
    assert [(d.pointer, d.message) for d in problems if d.level is Level.ERROR] == [
        (
            "/tool/mcp-codegen/tools",
            "no tool files match tools/*.json, tools/*.yaml, tools/*.yml; add one or fix the globs",
        )
    ]
    optional = tuple(replace(k, required=False) for k in kinds.KINDS)
    monkeypatch.setattr(kinds, "KINDS", optional)
    _, problems = checked_sources(load_config(root))
    assert [d for d in problems if d.level is Level.ERROR] == []


@pytest.mark.parametrize("row", kinds.KINDS, ids=lambda k: k.name)
def test_each_rows_marker_is_the_comment_the_merge_writes_and_reads(row: kinds.Kind) -> None:
    comment = marker_comment(marker_key(row.marker, "x y"))
    assert comment == f'# mcp-codegen {row.marker}: "x y"' == row.marker_prefix + '"x y"'
    assert marker_prefix(comment) == row.marker_prefix
