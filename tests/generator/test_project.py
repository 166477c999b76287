"""The one IR of a build: compile_project makes a frozen Project, and every stage after
compile (render, handlers, the typed client, the build record) is made from it alone."""

from __future__ import annotations

import dataclasses
import inspect
import json
from pathlib import Path

import pytest

from mcp_schemagen import GENERATOR_INPUT
from mcp_schemagen.compile.project import Project, compile_project
from mcp_schemagen.handlers.signatures import handler_module_spec
from mcp_schemagen.kind_sources import checked_sources
from mcp_schemagen.load.config import load_config
from mcp_schemagen.pipeline import plan
from mcp_schemagen.record.build_record import build_record
from mcp_schemagen.record.fingerprint import input_digests
from mcp_schemagen.render.client import client_modules
from mcp_schemagen.render.modules import MODULE_BUILDERS
from mcp_schemagen.render.package import render_package
from tests.support.projects import tool, write_project

PROMPT = {
    "name": "review",
    "arguments": [
        {"name": "language", "x-mcp-codegen-complete": True},
        {"name": "style", "x-mcp-codegen-schema": {"enum": ["short", "long"]}},
    ],
}
LOGS = {"uriTemplate": "app://logs/{day}", "name": "logs", "x-mcp-codegen-complete": ["day"]}


def _project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool()})
    for folder, name, content in (("prompts", "r.json", PROMPT), ("resources", "l.json", LOGS)):
        (root / folder).mkdir()
        (root / folder / name).write_text(json.dumps(content), encoding="utf-8")
    return root


def _compiled(root: Path) -> Project:
    config = load_config(root)
    sources, problems = checked_sources(config)
    return compile_project(config, sources, input_digests(config), problems)


def test_a_project_holds_every_compiled_item_by_kind_and_what_modules_import(
    tmp_path: Path,
) -> None:
    project = _compiled(_project(tmp_path))
    assert [t.name for t in project.tools] == ["echo"]
    assert [p.name for p in project.prompts] == ["review"]
    assert [(r.key, r.function) for r in project.resources] == [("app://logs/{day}", "read_logs")]
    assert [(c.kind, c.argument) for c in project.completers] == [
        ("prompt", "language"),
        ("resource", "day"),
    ]
    handlers = {"echo", "review", "read_logs", *(c.function for c in project.completers)}
    assert handlers <= project.functions
    assert list(project.handler_imports) == sorted(project.handler_imports)
    assert {"PromptReturn", "ResourceReturn", "CompletionArguments"} <= set(project.handler_imports)
    assert set(project.handler_imports) <= set(project.type_names)
    assert project.inventory == {"tools": 1, "prompts": 1, "resources": 1}
    assert GENERATOR_INPUT in project.inputs and GENERATOR_INPUT not in project.provenance
    with pytest.raises(dataclasses.FrozenInstanceError):
        project.tools = ()  # type: ignore[misc]


def test_the_stages_after_compile_take_the_project_and_nothing_else_of_the_build() -> None:
    for stage in (render_package, handler_module_spec, build_record, *MODULE_BUILDERS):
        first = next(iter(inspect.signature(stage).parameters.values()))
        assert first.annotation in ("Project", Project), stage.__qualname__
    client = list(inspect.signature(client_modules).parameters.values())
    assert client[1].annotation == "Project"


def test_the_plan_is_what_the_stages_make_of_one_project(tmp_path: Path) -> None:
    root = _project(tmp_path)
    project = _compiled(root)
    planned = {f.path: f.text for f in plan(root).files}
    rendered = render_package(project)
    assert {f.path: f.text for f in rendered.files}.items() <= planned.items()
    spec = handler_module_spec(project)
    assert [h.function for h in spec.handlers] == [
        "echo",
        "review",
        "read_logs",
        *(c.function for c in project.completers),
    ]
