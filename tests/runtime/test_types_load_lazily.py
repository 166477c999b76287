"""A stdio server never loads its tools' types (``.types`` and the ``_types`` modules
behind it: most of a large server's start-up) while handlers.py only names them in
annotations: the build imports those names under ``if TYPE_CHECKING:``, and nothing the
server runs evaluates a handler's annotations. Observed from outside, in the modules a
fresh server process of a 100-tool package holds (``sys.modules`` as it exits), through
start-up and through tool calls, which still validate their arguments and answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import SHARED_SPECS
from tests.support.projects import run_cli, write_project

pytestmark = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="needs ../shared/specs")

TOOLS = 100
REVISION = "2025-06-18"
SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "units": {"type": "string", "enum": ["c", "f"], "default": "c"},
        "days": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["city"],
}
OUTPUT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def message(id_: int, method: str, params: dict[str, object] | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}})


INITIALIZE = message(
    1,
    "initialize",
    {"protocolVersion": REVISION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
)
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


def call(id_: int, tool: str, arguments: dict[str, object]) -> str:
    return message(id_, "tools/call", {"name": tool, "arguments": arguments})


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """100 tools with an enum parameter (a Literal type each) and one with an output
    schema (a TypedDict), handlers filled in as a user would, built twice (the second
    build merges the bodies)."""
    root = tmp_path_factory.mktemp("lazy-types")
    tools: dict[str, object] = {
        f"weather_{i}.json": {"name": f"weather_{i}", "inputSchema": SCHEMA} for i in range(TOOLS)
    }
    tools["report.json"] = {"name": "report", "inputSchema": SCHEMA, "outputSchema": OUTPUT}
    project = write_project(
        root / "project", tools, revisions=(REVISION,), extra="page-size = 1000\n"
    )
    assert run_cli("build", "-q", str(project))[0] == 0
    handlers = project / "server" / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    for i in range(TOOLS):
        text = text.replace(
            f'raise NotImplementedError("weather_{i}")', 'return f"{city}: {units} {days}"'
        )
    text = text.replace('raise NotImplementedError("report")', 'return {"text": city}')
    handlers.write_text(text, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 0, err
    assert "if TYPE_CHECKING:\n    from .types import (\n" in handlers.read_text(encoding="utf-8")
    return project


# Runs the package's __main__ as `python -m server` does, and says which modules the
# process holds when it ends (stdin closed): every one, however it was imported.
SERVE = (
    "import atexit, json, runpy, sys;"
    "atexit.register(lambda: print('MODULES', json.dumps(sorted(sys.modules)), file=sys.stderr));"
    "runpy.run_module('server', run_name='__main__', alter_sys=True)"
)


def serve(project: Path, lines: list[str]) -> tuple[set[str], list[dict[str, object]]]:
    """The modules a fresh stdio server holds after answering ``lines``, and its replies
    by id."""
    modules, replies, _ = serve_logged(project, lines)
    return modules, replies


def serve_logged(project: Path, lines: list[str]) -> tuple[set[str], list[dict[str, object]], str]:
    """As serve, and what the server wrote on stderr."""
    done = subprocess.run(
        [sys.executable, "-c", SERVE],
        cwd=project,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (report,) = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    modules = set(json.loads(report.removeprefix("MODULES ")))
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    return modules, sorted(replies, key=lambda reply: int(str(reply["id"]))), done.stderr


def types_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m == "server.types" or m.startswith("server._types"))


def test_start_up_imports_no_types(package: Path) -> None:
    modules, replies = serve(package, [INITIALIZE, INITIALIZED, message(2, "tools/list")])
    assert "server.handlers" in modules and "server._dispatch" in modules  # read right
    listed = replies[1]["result"]
    assert isinstance(listed, dict) and len(listed["tools"]) == TOOLS + 1
    assert types_modules(modules) == []


def test_tool_calls_validate_and_answer_without_the_types(package: Path) -> None:
    modules, replies = serve(
        package,
        [
            INITIALIZE,
            INITIALIZED,
            call(2, "weather_7", {"city": "Oslo", "days": [1, 2]}),
            call(3, "weather_7", {"city": "Oslo", "units": "kelvin"}),
            call(4, "report", {"city": "Bergen"}),
            call(5, "weather_99", {"days": [1]}),
        ],
    )
    assert [r["id"] for r in replies] == [1, 2, 3, 4, 5]
    ok = replies[1]["result"]
    assert isinstance(ok, dict) and not ok.get("isError")
    assert ok["content"] == [{"type": "text", "text": "Oslo: c [1, 2]"}]
    structured = replies[3]["result"]
    assert isinstance(structured, dict) and structured["structuredContent"] == {"text": "Bergen"}
    for rejected, field in ((replies[2], "kelvin"), (replies[4], "city")):
        text = json.dumps(rejected)
        assert "error" in rejected or '"isError": true' in text, text
        assert field in text, text
    assert types_modules(modules) == []


def test_a_type_a_body_reads_is_imported_for_real_and_loads(package: Path, tmp_path: Path) -> None:
    """The other side: a body that builds its output TypedDict makes the next build import
    that name for real, and the server then loads `.types` and that tool's types module,
    no other tool's (and still answers)."""
    handlers = package / "server" / "handlers.py"
    before = handlers.read_text(encoding="utf-8")
    try:
        handlers.write_text(
            before.replace('return {"text": city}', "return ReportOutput(text=city)"),
            encoding="utf-8",
        )
        code, _, err = run_cli("build", "-q", str(package))
        assert code == 0, err
        assert "\nfrom .types import ReportOutput\n" in handlers.read_text(encoding="utf-8")
        modules, replies = serve(
            package, [INITIALIZE, INITIALIZED, call(2, "report", {"city": "X"})]
        )
        result = replies[1]["result"]
        assert isinstance(result, dict) and result["structuredContent"] == {"text": "X"}
        # `.types` loads each tool's module when a name of it is first asked for: this one.
        assert "server.types" in modules
        assert [m for m in types_modules(modules) if m.startswith("server._types.")] == [
            "server._types.report__output"
        ]
    finally:
        handlers.write_text(before, encoding="utf-8")
        assert run_cli("build", "-q", str(package))[0] == 0


def test_a_body_changed_to_read_a_type_without_a_build_still_answers(package: Path) -> None:
    """Before the next build the name is still under TYPE_CHECKING: the server binds the
    type a function reads at start-up (loading that tool's types alone), so the edited
    handler answers rather than failing with a NameError; names no code reads stay
    unloaded."""
    handlers = package / "server" / "handlers.py"
    before = handlers.read_text(encoding="utf-8")
    try:
        helper = "\n\ndef _built(city: str) -> ReportOutput:\n    return ReportOutput(text=city)\n"
        handlers.write_text(
            before.replace('return {"text": city}', "return _built(city)") + helper,
            encoding="utf-8",
        )
        modules, replies = serve(
            package,
            [
                INITIALIZE,
                INITIALIZED,
                call(2, "report", {"city": "X"}),
                call(3, "weather_1", {"city": "Y"}),
            ],
        )
        result = replies[1]["result"]
        assert isinstance(result, dict) and result["structuredContent"] == {"text": "X"}
        assert result.get("isError") is not True
        assert [m for m in types_modules(modules) if m.startswith("server._types.")] == [
            "server._types.report__output"
        ]
        other = replies[2]["result"]
        assert isinstance(other, dict) and other["content"][0]["text"] == "Y: c None"
    finally:
        handlers.write_text(before, encoding="utf-8")
