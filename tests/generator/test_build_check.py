"""`build` and `check` end to end on small projects: exit codes, diffs, writes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schemagen import freshness
from mcp_schemagen.load.config import load_config
from mcp_schemagen.runtime.protocol import NAMES
from tests.support.projects import run_cli, tool, write_project


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool(), "other.json": tool("other")})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


def test_check_is_clean_right_after_build_and_uses_the_manifest(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pipeline(*_: object, **__: object) -> None:
        raise AssertionError("an unchanged project must not need the pipeline")

    monkeypatch.setattr("mcp_schemagen.pipeline.plan", no_pipeline)
    code, out, _ = run_cli("check", str(project))
    assert (code, out) == (0, "generated code is up to date\n")


def test_check_fails_with_a_diff_and_the_fix_command_after_an_edit(project: Path) -> None:
    edited = tool(description="Echo the text back, louder.")
    (project / "tools" / "echo.json").write_text(json.dumps(edited), encoding="utf-8")
    before = _snapshot(project)
    code, out, err = run_cli("check", "--diff", str(project))
    assert code == 1
    assert re.search(r'^-\s+"description": "Echo the text back\.",$', out, re.MULTILINE)
    assert re.search(r'^\+\s+"description": "Echo the text back, louder\.",$', out, re.MULTILINE)
    assert f"Fix with:\n    mcp-codegen build {project}" in err
    assert _snapshot(project) == before, "check never writes"


def test_check_names_a_changed_tool_at_once_from_the_build_record(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, the pre-commit case: the record proves the edit stale, so no generation."""

    def no_pipeline(*_: object, **__: object) -> None:
        raise AssertionError("a changed input is stale without running the pipeline")

    monkeypatch.setattr("mcp_schemagen.pipeline.plan", no_pipeline)
    handlers = project / "server" / "handlers.py"  # a body filled in since the build
    body = handlers.read_text(encoding="utf-8").replace(
        'raise NotImplementedError("echo")', "return 'my body'"
    )
    assert "my body" in body
    handlers.write_text(body, encoding="utf-8")
    edited = tool(description="Echo the text back, louder.")
    (project / "tools" / "echo.json").write_text(json.dumps(edited), encoding="utf-8")
    (project / "tools" / "other.json").unlink()
    (project / "tools" / "third.json").write_text(json.dumps(tool("third")), encoding="utf-8")
    before = _snapshot(project)
    code, out, err = run_cli("check", str(project))
    assert (code, out) == (
        1,
        "tools/echo.json: changed since the last build\n"
        "tools/other.json: gone since the last build\n"
        "tools/third.json: new since the last build\n",
    )
    assert f"Fix with:\n    mcp-codegen build {project}" in err
    assert f"mcp-codegen check --diff {project}" in err
    assert _snapshot(project) == before, "check never writes"


def test_check_names_a_hand_edited_generated_file_at_once(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mcp_schemagen.pipeline.plan", None)  # never called
    dispatch = project / "server" / "_dispatch.py"
    dispatch.write_text(dispatch.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    (project / "server" / "types.py").unlink()
    code, out, _ = run_cli("check", str(project))
    assert (code, out) == (
        1,
        "server/_dispatch.py: differs from what the build wrote\n"
        "server/types.py: differs from what the build wrote\n",
    )


def test_a_record_from_another_generator_proves_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same inputs through a changed generator may give other bytes, and changed inputs
    the same bytes: only the pipeline can tell, so `check` runs it (and here finds the
    package current, since this generator change alters no output)."""
    from mcp_schemagen.record import fingerprint

    monkeypatch.setattr(fingerprint, "generator_fingerprint", lambda: "another generator")
    assert freshness.proven_stale(load_config(project)) == []
    code, out, _ = run_cli("check", str(project))
    assert (code, out) == (0, "generated code is up to date\n")


def test_every_input_the_record_holds_is_in_the_dispatch_header(project: Path) -> None:
    """What lets a changed input prove the package stale without a build: the text of
    _dispatch.py names the digest of every input but the generator's own."""
    record = json.loads((project / "server" / "_manifest.json").read_text(encoding="utf-8"))
    dispatch = (project / "server" / "_dispatch.py").read_text(encoding="utf-8")
    for label, digest in record["inputs"].items():
        if label != "mcp-codegen":
            assert f"# input: {label} sha256={digest}\n" in dispatch, label


def test_the_generator_fingerprint_covers_every_module_the_build_uses() -> None:
    from mcp_schemagen.record import fingerprint

    package = Path(freshness.__file__).resolve().parent
    labels = dict(fingerprint.generator_files())
    for module in package.rglob("*.py"):
        label = module.relative_to(package).as_posix()
        assert labels.get(label) == module, label  # the runtime it copies, the stages, all
    assert "package/_dispatch.py.jinja" in labels  # data: the same label installed or not


@pytest.mark.parametrize("diff", [False, True])
def test_check_exits_2_on_a_broken_file(project: Path, diff: bool) -> None:
    (project / "tools" / "echo.json").write_text("{", encoding="utf-8")
    code, _, err = run_cli("check", *(["--diff"] if diff else []), str(project))
    assert code == 2
    assert "tools/echo.json#: error: not valid JSON" in err


def test_check_exits_2_when_two_tools_share_a_name(project: Path) -> None:
    (project / "tools" / "other.json").write_text(json.dumps(tool("echo")), encoding="utf-8")
    code, _, err = run_cli("check", str(project))
    assert code == 2
    assert "tool name 'echo' is already used" in err


def test_check_sees_a_hand_edited_generated_file(project: Path) -> None:
    dispatch = project / "server" / "_dispatch.py"
    dispatch.write_text(dispatch.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    code, out, _ = run_cli("check", "--diff", str(project))
    assert code == 1
    assert "-# edited" in out


def test_second_build_writes_nothing(project: Path) -> None:
    before = _snapshot(project)
    code, out, _ = run_cli("build", "-q", str(project))
    assert code == 0
    assert out == "server: up to date (2 tools)\n"
    assert _snapshot(project) == before


def test_a_removed_tool_loses_its_generated_modules_but_never_its_handler(project: Path) -> None:
    handlers = project / "server" / "handlers.py"
    handlers.write_text(
        handlers.read_text(encoding="utf-8").replace(
            'raise NotImplementedError("other")', "return 'my precious body'"
        ),
        encoding="utf-8",
    )
    (project / "tools" / "other.json").unlink()
    code, out, _ = run_cli("check", "--diff", str(project))
    assert code == 1
    assert "other__input.py" in out
    code, out, _ = run_cli("build", "-q", str(project))
    assert code == 0
    assert not (project / "server" / "_types" / "other__input.py").exists()
    assert "removed" in out and "other__input.py" in out
    assert "my precious body" in handlers.read_text(encoding="utf-8")
    assert run_cli("check", str(project))[0] == 0


def test_a_new_tool_file_is_noticed(project: Path) -> None:
    (project / "tools" / "third.json").write_text(json.dumps(tool("third")), encoding="utf-8")
    assert not freshness.is_fresh(project)
    code, out, _ = run_cli("check", "--diff", str(project))
    assert code == 1 and "third__input.py" in out


def test_build_is_all_or_nothing_when_a_write_fails(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "tools" / "echo.json").write_text(
        json.dumps(tool(description="changed")), encoding="utf-8"
    )
    (project / "tools" / "other.json").write_text(
        json.dumps(tool("other", description="changed")), encoding="utf-8"
    )
    assert run_cli("check", str(project))[0] == 1  # warms the caches: the build below only writes
    before = _snapshot(project)
    real_fdopen = os.fdopen
    calls = {"n": 0}

    def failing_fdopen(fd: int, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            os.close(fd)
            raise OSError("disk full")
        return real_fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "fdopen", failing_fdopen)
    with pytest.raises(OSError, match="disk full"):
        run_cli("build", "-q", str(project))
    after = _snapshot(project)
    assert after == before, "a failed build leaves every file as it was"


def test_specs_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    code, out, err = run_cli("specs", "pull", "2025-06-18", "2099-01-01")
    assert code == 2 and out == ""
    assert "unknown protocol revision '2099-01-01'" in err
    code, out, _ = run_cli("specs", "pull", "2025-06-18")
    assert code == 0 and out.startswith("2025-06-18: verified sha256 af845e7e")
    code, out, _ = run_cli("specs", "list")
    listed = [line for line in out.splitlines() if line.startswith("2025-06-18")]
    assert code == 0 and len(listed) == 1
    assert "mirror" in listed[0] or "cache" in listed[0]
    # Six revisions, oldest first; 2024-10-07's file lived at schema/schema.json.
    names = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert names == list(NAMES) and len(names) == 6
    upstream = [line.split()[-1] for line in out.splitlines() if "upstream http" in line]
    assert upstream[0] == (
        "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/"
        "ed35f718be83a2e3e1e568f7ba3562b81ed69c40/schema/schema.json"
    )
    assert all(
        url.endswith(f"/schema/{name}/schema.json")
        for name, url in zip(names[1:], upstream[1:], strict=True)
    )


def test_an_unparsable_handler_module_stops_the_build_with_exit_3(project: Path) -> None:
    handlers = project / "server" / "handlers.py"
    handlers.write_text(handlers.read_text(encoding="utf-8") + "\ndef broken(:\n", encoding="utf-8")
    (project / "tools" / "echo.json").write_text(
        json.dumps(tool(description="new")), encoding="utf-8"
    )
    before = _snapshot(project)
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 3
    assert "cannot read the handler module: it does not parse" in err
    assert err.count("nothing was written") == 1
    assert _snapshot(project) == before


@pytest.mark.parametrize(
    ("revisions", "published"), [(("2025-06-18",), False), (("2025-06-18", "2026-07-28"), True)]
)
def test_the_server_validates_an_output_schema_its_newest_revision_cannot_publish(
    revisions: tuple[str, ...], published: bool, tmp_path: Path
) -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    root = write_project(tmp_path / "p", {"t.json": tool(outputSchema=schema)}, revisions=revisions)
    assert run_cli("build", "-q", str(root))[0] == 0
    probe = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from server._dispatch import TOOLS;"
        "entry = TOOLS[0]; print(json.dumps([entry.output_schema,"
        " ['outputSchema' in form for form in entry.published.values()]]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, str(root)], capture_output=True, text=True, check=True
    )
    output_schema, forms = json.loads(result.stdout)
    assert output_schema == schema
    assert forms[-1] is published
