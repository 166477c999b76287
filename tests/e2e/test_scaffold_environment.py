"""A scaffolded project's server tests hand the server their environment: a handler that
reads a variable (a database path, say) sees the value the test set, by
``monkeypatch.setenv`` or by ``env=`` of ``with_server`` (``connected`` for a 2024-10-07
project), and not some other value the SDK's default environment would leave it.

The tests are appended to the project's own tests/test_server.py and run by pytest in it,
as its author would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schemagen import scaffold
from tests.support.projects import run_cli

NAME = "env_server"
VARIABLE = "ENV_SERVER_DB"
TOOL = {
    "name": "where_db",
    "description": "Say where the database is.",
    "inputSchema": {"type": "object", "properties": {}},
}
BODY = f'return __import__("os").environ.get("{VARIABLE}", "unset")'

SDK_TESTS = f'''

def test_the_server_sees_what_the_test_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("{VARIABLE}", "set-by-monkeypatch")

    async def scenario(client: Client) -> None:
        assert _text(await client.tools.where_db()) == "set-by-monkeypatch"

    with_server(scenario)


def test_the_server_gets_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("{VARIABLE}", "not this one")

    async def scenario(client: Client) -> None:
        assert _text(await client.tools.where_db()) == "given"

    with_server(scenario, env={{"{VARIABLE}": "given"}})
'''

RAW_TESTS = f'''

def test_the_server_sees_what_the_test_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("{VARIABLE}", "set-by-monkeypatch")
    with connected() as server:
        assert server.call("where_db", {{}})["result"]["toolResult"] == "set-by-monkeypatch"


def test_the_server_gets_env() -> None:
    with connected(env={{"{VARIABLE}": "given"}}) as server:
        assert server.call("where_db", {{}})["result"]["toolResult"] == "given"
'''


@pytest.mark.parametrize("revision", ["2026-07-28", "2024-10-07"])
def test_a_scaffolded_test_hands_the_server_its_environment(tmp_path: Path, revision: str) -> None:
    root = scaffold.scaffold(NAME, tmp_path / "p", [revision])
    (root / "tools" / "where_db.json").write_text(json.dumps(TOOL), encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / NAME / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    stub = 'raise NotImplementedError("where_db")'
    assert stub in text
    handlers.write_text(text.replace(stub, BODY), encoding="utf-8")
    tests = root / "tests" / "test_server.py"
    source = tests.read_text(encoding="utf-8")
    if "import pytest" not in source:
        source = source.replace(
            "from __future__ import annotations\n",
            "from __future__ import annotations\n\nimport pytest\n",
            1,
        )
    tests.write_text(
        source + (RAW_TESTS if revision == "2024-10-07" else SDK_TESTS), encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_server.py",
         "-k", "the_server_sees or the_server_gets_env"],
        cwd=root, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout, done.stdout
