"""A tool's name never reaches anything but the handler function generated for it: not a
module attribute Python defines (`__class__`, `__dict__`, `__doc__`...), not a name the
handler module imports, not a builtin, not a module-level ``__getattr__``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from mcp_schemagen.runtime.handler_lookup import HandlerNotFound, handler_functions
from tests.support.projects import tool, write_project

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
# Module attributes every module has, or its type defines, and names handlers.py binds.
HOSTILE_NAMES = (
    "__class__",
    "__dict__",
    "__doc__",
    "__name__",
    "__getattr__",
    "__init__",
    "__spec__",
    "__builtins__",
    "annotations",
    "print",
    "ContentBlock",
)


def test_each_tool_is_answered_by_its_own_handler(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"hostile.json": [tool(n) for n in HOSTILE_NAMES]})
    built = subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "build", "-q", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    handlers = root / "server" / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    # Every stub answers with its tool's name, so a reply shows which function ran.
    text, count = re.subn(r"raise NotImplementedError\((.*)\)", r"return 'answered by ' + \1", text)
    assert count == len(HOSTILE_NAMES)
    handlers.write_text(text, encoding="utf-8")
    requests = [
        {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": name, "arguments": {"text": "x"}, "_meta": META}}
        for i, name in enumerate(HOSTILE_NAMES)
    ]  # fmt: skip
    served = subprocess.run(
        [sys.executable, "-m", "server"],
        cwd=root,
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert served.returncode == 0, served.stderr
    replies = {r["id"]: r for r in map(json.loads, served.stdout.splitlines())}
    for i, name in enumerate(HOSTILE_NAMES):
        result = replies[i]["result"]
        assert result.get("isError") is not True, (name, result)
        assert result["content"] == [{"type": "text", "text": f"answered by {name}"}], name


def _module(source: str) -> types.ModuleType:
    module = types.ModuleType("fake_handlers")
    exec(compile(source, "fake_handlers.py", "exec"), module.__dict__)
    return module


def test_the_lookup_takes_only_the_modules_own_functions() -> None:
    module = _module(
        "import functools\n"
        "from os.path import join\n"
        "def mine(): return 1\n"
        "def _wrap(f):\n"
        "    @functools.wraps(f)\n"
        "    def inner(*a, **k): return f(*a, **k)\n"
        "    return inner\n"
        "@_wrap\n"
        "def wrapped(): return 2\n"
        "def __getattr__(name): return mine\n"
        "VALUE = 3\n"
    )
    found = handler_functions(module, {"a": "mine", "b": "wrapped"})
    assert found["a"]() == 1 and found["b"]() == 2
    for function in ("__class__", "__dict__", "join", "missing", "VALUE", "functools", "print"):
        with pytest.raises(HandlerNotFound, match=f"tool 't': fake_handlers must define the "
                           f"handler function '{function}'"):  # fmt: skip
            handler_functions(module, {"t": function})
    # A prompt's, a reader's or a completion's missing function names its own marker.
    for kind in ("prompt", "resource", "completion"):
        with pytest.raises(HandlerNotFound, match=f"{kind} 'k': .* `# mcp-codegen {kind}: ...`"):
            handler_functions(module, {"k": "missing"}, kind)
