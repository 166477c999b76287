"""`typing.get_type_hints()` resolves every generated handler's annotations (tools,
prompts, resource readers, completions), though handlers.py imports the types its
annotations alone name under `if TYPE_CHECKING:`; and serving still loads none of them
(runtime/handler_hints.py binds them on the first access from outside the server)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import SHARED_SPECS
from tests.support.projects import build_embedded_example, run_cli, tool, write_project

pytestmark = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="needs ../shared/specs")


def _python(folder: Path, code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _handler_functions(package: Path) -> list[str]:
    manifest = json.loads((package / "_manifest.json").read_text(encoding="utf-8"))
    return [handler["function"] for handler in manifest["handlers"]["handlers"]]


def test_get_type_hints_resolves_every_handler_of_the_example(tmp_path: Path) -> None:
    out = build_embedded_example(tmp_path)
    functions = _handler_functions(out / "example_server")
    kinds = {
        h["kind"]
        for h in json.loads((out / "example_server" / "_manifest.json").read_text())["handlers"][
            "handlers"
        ]
    }
    assert kinds == {"tool", "prompt", "resource", "completion"}
    source = (out / "example_server" / "handlers.py").read_text(encoding="utf-8")
    assert "if TYPE_CHECKING:" in source  # the lazy import is there to be resolved
    resolved = _python(
        out,
        "import typing, example_server.handlers as h\n"
        f"for name in {functions!r}:\n"
        "    hints = typing.get_type_hints(getattr(h, name))\n"
        "    assert 'return' in hints, name\n"
        f"print(len({functions!r}))",
    )
    assert resolved == str(len(functions))


TYPED = tool(
    "plan",
    inputSchema={
        "type": "object",
        "properties": {
            "stop": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            "mode": {"enum": ["walk", "ride"]},
        },
        "required": ["stop"],
    },
    outputSchema={
        "type": "object",
        "properties": {"minutes": {"type": "integer"}},
        "required": ["minutes"],
    },
)


@pytest.fixture
def typed(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "p", {"plan.json": TYPED, "echo.json": tool()})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    source = source.replace('raise NotImplementedError("plan")', 'return {"minutes": 3}')
    handlers.write_text(source.replace('raise NotImplementedError("echo")', "return text"))
    assert "if TYPE_CHECKING:\n    from .types import" in source
    return root


def test_the_hints_are_the_generated_types(typed: Path) -> None:
    hints = _python(
        typed,
        "import typing\n"
        "from server.handlers import plan\n"
        "import server.types as t\n"
        "hints = typing.get_type_hints(plan)\n"
        "assert hints['stop'] is t.PlanStop, hints\n"
        "assert hints['return'] == t.PlanOutput | t.ToolResult, hints\n"
        "print(sorted(hints))",
    )
    assert hints == "['mode', 'return', 'stop']"


def test_serving_loads_none_of_the_annotation_types(typed: Path) -> None:
    """What the server does: import the dispatch table, which imports the handler module
    and reads its namespace; then call a handler."""
    loaded = _python(
        typed,
        "import sys, asyncio\n"
        "import server._dispatch\n"
        "print(sorted(m for m in sys.modules if m.startswith('server._types')))",
    )
    assert loaded == "[]"
