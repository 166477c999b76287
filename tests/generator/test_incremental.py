"""A build after an edit redoes the edited tool's work only (its types, the modules whose
text changed, its handler) and takes the rest from the build record, yet writes exactly
what a build from nothing writes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import datamodel_code_generator
import pytest

from mcp_schemagen.render import formatting
from tests.support.projects import run_cli, tool, write_project

TOOLS = 6


def _tree(package: Path) -> dict[str, bytes]:
    return {
        p.relative_to(package).as_posix(): p.read_bytes()
        for p in sorted(package.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _tools() -> dict[str, Any]:
    made = {}
    for n in range(TOOLS):
        definition = tool(f"tool_{n}")
        definition["inputSchema"]["properties"]["count"] = {"type": "integer", "default": n}
        made[f"tool_{n}.json"] = definition
    return made


def _typed(tmp_path: Path) -> list[str]:
    """The property names of each schema the generator ran for (see ``counted``), in the
    order it ran."""
    log = tmp_path / "typed.log"
    return log.read_text(encoding="utf-8").split() if log.is_file() else []


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, list[str]]:
    """The modules handed to the formatter, and the type names datamodel-code-generator
    was run for, by this test's builds (in process, with a cache of their own; the names
    through a file, since forked workers may run the generator: compile/type_prefill.py)."""
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    seen: dict[str, list[str]] = {"formatted": []}
    typed_log = tmp_path / "typed.log"
    format_modules = formatting.format_modules
    generate = datamodel_code_generator.generate

    def counting_format(sources: list[str]) -> list[str]:
        seen["formatted"] += sources
        return format_modules(sources)

    def counting_generate(*args: Any, **kwargs: Any) -> Any:
        with typed_log.open("a", encoding="utf-8") as log:
            # The schema's property names: the root name is a stand-in (compile/typegen.py).
            log.write(",".join(args[0].get("properties", {})) + "\n")
        return generate(*args, **kwargs)

    monkeypatch.setattr("mcp_schemagen.render.package.format_modules", counting_format)
    monkeypatch.setattr(datamodel_code_generator, "generate", counting_generate)
    return seen


def test_an_edit_redoes_one_tool_and_matches_a_build_from_nothing(
    tmp_path: Path, counted: dict[str, list[str]]
) -> None:
    project = write_project(tmp_path / "incremental", _tools())
    handlers = project / "server" / "handlers.py"
    assert run_cli("build", "-q", str(project))[0] == 0
    handlers.write_text(
        handlers.read_text(encoding="utf-8").replace(
            'raise NotImplementedError("tool_1")', 'return "kept"'
        ),
        encoding="utf-8",
    )
    assert len(counted["formatted"]) >= TOOLS + 3  # every module, the first time
    assert len(_typed(tmp_path)) == TOOLS

    edited = _tools()
    edited["tool_3.json"]["description"] = "A new description."
    edited["tool_3.json"]["inputSchema"]["properties"]["extra"] = {"type": "boolean"}
    write_project(project, edited)
    counted["formatted"].clear()
    (tmp_path / "typed.log").unlink()
    assert run_cli("build", "-q", str(project))[0] == 0

    # Its types alone are made again; every other tool's come from the cache.
    assert _typed(tmp_path) == [",".join(edited["tool_3.json"]["inputSchema"]["properties"])]
    # Formatted again: the edited tool's module and the three modules that list every tool
    # (the dispatch table, types.py and the typed client).
    formatted = counted["formatted"]
    assert len(formatted) == 4, [text.splitlines()[3:5] for text in formatted]
    assert any("class Tool3Input" in text for text in formatted)

    # The same bytes as a build from nothing of the same project and handler module.
    scratch = tmp_path / "scratch"
    shutil.copytree(project, scratch, ignore=shutil.ignore_patterns("server"))
    (scratch / "server").mkdir()
    shutil.copy(handlers, scratch / "server" / "handlers.py")
    assert run_cli("build", "-q", str(scratch))[0] == 0
    assert _tree(scratch / "server") == _tree(project / "server")
    assert 'return "kept"' in handlers.read_text(encoding="utf-8")
    assert run_cli("check", str(project))[0] == 0


def test_an_edited_generated_module_is_made_again_not_reused(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", _tools())
    assert run_cli("build", "-q", str(project))[0] == 0
    module = project / "server" / "_types" / "tool_2__input.py"
    original = module.read_text(encoding="utf-8")
    module.write_text(original + "\nx = 1\n", encoding="utf-8")
    code, out, _ = run_cli("check", str(project))
    assert code == 1 and "tool_2__input.py" in out
    assert run_cli("build", "-q", str(project))[0] == 0
    assert module.read_text(encoding="utf-8") == original
