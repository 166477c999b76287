"""The tool types made ahead in forked workers (compile/type_prefill.py) and read back
from the user cache (compile/type_cache.py): the same bytes as one process making them,
and a cache entry that is damaged or not the one asked for is made again, never used."""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path
from typing import Any

import datamodel_code_generator
import pytest

from mcp_schemagen import program
from mcp_schemagen.compile import type_prefill
from tests.support.projects import run_cli, tool, write_project

TOOLS = 8  # with an outputSchema each: 16 schemas, 8 per worker at MISSES_PER_WORKER = 4


def _tools() -> dict[str, Any]:
    made = {}
    for n in range(TOOLS):
        definition = tool(f"tool_{n}")
        properties = definition["inputSchema"]["properties"]
        properties["count"] = {"type": "integer", "default": n}
        properties[f"nested_{n}"] = {
            "type": "object",
            "description": f"Nested object {n}.",
            "properties": {"kind": {"enum": ["a", f"b{n}"]}, "items": {"type": "array"}},
        }
        definition["outputSchema"] = {
            "type": "object",
            "properties": {"total": {"type": "number"}, f"label_{n}": {"type": "string"}},
            "required": ["total"],
        }
        made[f"tool_{n}.json"] = definition
    return made


def _tree(package: Path) -> dict[str, bytes]:
    return {
        p.relative_to(package).as_posix(): p.read_bytes()
        for p in sorted(package.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many workers made types ahead in each build (one entry per build), with two
    cores and a low threshold so that this small project is shared out."""
    ran: list[int] = []
    wait = type_prefill.Prefill.wait

    def counting(self: type_prefill.Prefill) -> None:
        if self.workers:
            ran.append(self.workers)
        wait(self)

    monkeypatch.setattr(program, "_is_program", True)  # as `mcp-codegen` run from a shell
    monkeypatch.setattr(type_prefill, "_cores", lambda: 2)
    monkeypatch.setattr(type_prefill, "MISSES_PER_WORKER", 4)
    monkeypatch.setattr(type_prefill.Prefill, "wait", counting)
    return ran


def _build(project: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(cache))
    assert run_cli("build", "-q", str(project))[0] == 0
    return _tree(project / "server")


def test_types_made_by_workers_are_the_bytes_one_process_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: list[int]
) -> None:
    shared_out = _build(write_project(tmp_path / "shared", _tools()), tmp_path / "c1", monkeypatch)
    assert workers == [2]
    assert len(list((tmp_path / "c1" / "types").glob("*.json"))) == 2 * TOOLS

    monkeypatch.setattr(type_prefill, "_cores", lambda: 1)  # no workers: the compile alone
    alone = _build(write_project(tmp_path / "alone", _tools()), tmp_path / "c2", monkeypatch)
    assert workers == [2]
    assert shared_out == alone
    monkeypatch.setattr(type_prefill, "_cores", lambda: 2)

    # A build after one edit, its other types read from the workers' cache: the bytes of
    # a build from nothing of the edited project.
    edited = _tools()
    edited["tool_5.json"]["inputSchema"]["properties"]["added"] = {"type": "boolean"}
    write_project(tmp_path / "shared", edited)
    after_edit = _build(tmp_path / "shared", tmp_path / "c1", monkeypatch)
    assert workers == [2, 1]  # the edited schema's types, made while the checks ran
    fresh = _build(write_project(tmp_path / "fresh", edited), tmp_path / "c3", monkeypatch)
    assert after_edit == fresh != shared_out


def _damage(entries: list[Path]) -> None:
    """Three kinds of damage, one entry each: cut short, its text changed under its key,
    another schema's entry in its place."""
    cut, changed, swapped = entries[0], entries[1], entries[2]
    cut.write_bytes(cut.read_bytes()[:40])
    document = json.loads(changed.read_text())
    document["source"] = document["source"].replace("class ", "class Wrong")
    changed.write_text(json.dumps(document))
    shutil.copy(entries[3], swapped)


def test_a_damaged_or_misplaced_cache_entry_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    project = write_project(tmp_path / "p", _tools())
    first = _build(project, cache, monkeypatch)
    entries = sorted((cache / "types").glob("*.json"))
    assert len(entries) == 2 * TOOLS
    _damage(entries)

    made: list[str] = []
    generate = datamodel_code_generator.generate

    def counting_generate(*args: Any, **kwargs: Any) -> Any:
        made.append(kwargs["class_name"])
        return generate(*args, **kwargs)

    monkeypatch.setattr(datamodel_code_generator, "generate", counting_generate)
    shutil.rmtree(project / "server")
    assert _build(project, cache, monkeypatch) == first
    assert len(made) == 3  # the three damaged entries, and only they
    # ... and written again, whole: the next build takes every type from the cache.
    made.clear()
    shutil.rmtree(project / "server")
    assert _build(project, cache, monkeypatch) == first
    assert made == []


def test_a_build_its_checks_refuse_stops_the_workers_and_leaves_no_litter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: list[int]
) -> None:
    tools = _tools()
    tools["tool_7.json"]["inputSchema"]["requird"] = ["text"]  # the checks refuse it
    project = write_project(tmp_path / "p", tools)
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 2 and "did you mean 'required'?" in err
    assert not (project / "server").exists()
    # Started (the build's own first entry is there) while the checks ran, then stopped.
    assert list((tmp_path / "cache" / "types").glob("*.json"))
    assert multiprocessing.active_children() == []
    # An entry a stopped worker was writing is removed, never left half-written.
    assert list((tmp_path / "cache").rglob("*.tmp")) == []
    for entry in (tmp_path / "cache").rglob("*.json"):
        json.loads(entry.read_text())


def test_a_build_called_in_a_process_of_its_own_forks_no_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the mcp-codegen program forks: a caller's process (this test run: threads and
    locks of its own, which a forked child would inherit held) builds in one process."""
    monkeypatch.setattr(type_prefill, "_cores", lambda: 2)
    monkeypatch.setattr(type_prefill, "MISSES_PER_WORKER", 4)
    started: list[object] = []

    def no_fork(method: str | None = None) -> object:
        started.append(method)
        raise AssertionError(f"a worker context asked for: {method}")

    monkeypatch.setattr(multiprocessing, "get_context", no_fork)
    assert not program.is_program()
    built = _build(write_project(tmp_path / "p", _tools()), tmp_path / "cache", monkeypatch)
    assert built and started == []
