"""Protocol revision 2024-10-07 end to end, on a server the generator builds.

The tools are the examples of the Tools chapter's pre-release draft (seeds 000 and 001 in
../shared/seeds), read from the seeds at test time and written as the project's tool
files; the project speaks 2024-10-07 only. Over raw stdio (every message checked against
2024-10-07's schema.json by stdio_conversation) the server answers the seeds' own
requests in the shapes the seeds show. The official TypeScript SDK client, which still
lists 2024-10-07, negotiates it with the server and parses a tool result with its
compatibility schema for that revision.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.node import node_toolchain
from tests.support.paths import SHARED, needs_shared
from tests.support.projects import run_cli, write_project
from tests.support.stdio_conversation import Conversation

pytestmark = needs_shared

REVISION = "2024-10-07"
PACKAGE = "seed_server"
SEEDS = SHARED / "seeds"
CLIENT_SCRIPT = Path(__file__).parent / "data" / "ts_sdk_client.cjs"

# Handler bodies for the seeds' tools (the build fills in the signatures). get_weather
# returns data, which a 2024-10-07 client receives as the toolResult value itself.
HANDLERS = """
from __future__ import annotations

from typing import Any

from .api import ToolError

TABLES: dict[str, list[dict[str, Any]]] = {
    "users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}],
    "products": [],
    "orders": [],
}


# mcp-codegen tool: "get_weather"
def get_weather(*, location: str, units: str = "metric") -> Any:
    celsius = 20 + len(location) % 10
    temperature = celsius * 9 / 5 + 32 if units == "imperial" else celsius
    return {
        "temperature": temperature,
        "humidity": 40 + len(location),
        "description": f"clear over {location} ({units})",
    }


# mcp-codegen tool: "query_database"
def query_database(*, query: str, database: str = "users") -> Any:
    if not query.lstrip().upper().startswith("SELECT"):
        raise ToolError(f"only SELECT queries are allowed, not: {query}")
    rows = TABLES[database]
    if not rows:
        return {"error": f"no rows in {database} for: {query}", "status": "empty_results"}
    return {"database": database, "rows": rows}
"""


def seed_examples(prefix: str) -> list[Any]:
    """The JSON examples of a seed, in order."""
    (path,) = SEEDS.glob(f"{prefix}_*.txt")
    text = path.read_text(encoding="utf-8")
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]


def request_example(examples: list[Any], method: str) -> Any:
    (found,) = [e for e in examples if isinstance(e, dict) and e.get("method") == method]
    return found


def response_example(examples: list[Any], request_id: Any) -> Any:
    """The seed's response to its request ``request_id``."""
    (found,) = [
        e
        for e in examples
        if isinstance(e, dict) and e.get("id") == request_id and ("result" in e or "error" in e)
    ]
    return found


def call(c: Conversation, request_id: int, name: str, arguments: Any) -> dict[str, Any]:
    """tools/call with an id of our own (ids below 100 are the seeds')."""
    params = {"name": name, "arguments": arguments}
    return c.wait(c.start("tools/call", params, id=request_id))


def shape(value: Any) -> Any:
    """A JSON value with every scalar replaced by its JSON type: what "the same shape" means."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else "string"


@pytest.fixture(scope="module")
def seeds() -> list[Any]:
    # Seed 001 is the later text of the same chapter: everything of 000 and more examples.
    examples = seed_examples("001")
    assert [e for e in seed_examples("000") if e not in examples] == []
    return examples


@pytest.fixture(scope="module")
def project(seeds: list[Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    tools = {f"{e['name']}.json": e for e in seeds if isinstance(e, dict) and "inputSchema" in e}
    assert sorted(tools) == ["get_weather.json", "query_database.json"]
    root = write_project(
        tmp_path_factory.mktemp("rev2024") / "project",
        tools,
        package=PACKAGE,
        revisions=(REVISION,),
    )
    (root / PACKAGE).mkdir()
    (root / PACKAGE / "handlers.py").write_text(HANDLERS, encoding="utf-8")
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert "warning" not in err  # the seeds' tools are plain 2024-10-07 tools
    return root


@pytest.fixture
def conversation(project: Path, tmp_path: Path) -> Iterator[Conversation]:
    c = Conversation(project, PACKAGE, REVISION, tmp_path / "stderr.txt")
    hello = {
        "protocolVersion": REVISION,
        "capabilities": {},
        "clientInfo": {"name": "seed-test", "version": "1"},
    }
    initialized = c.wait(c.start("initialize", hello, id=1000))["result"]
    assert initialized["protocolVersion"] == REVISION
    assert "instructions" not in initialized  # InitializeResult of 2024-10-07 has none
    c.notify("notifications/initialized")
    yield c
    c.kill()


def test_the_listing_is_the_seeds_listing(seeds: list[Any], conversation: Conversation) -> None:
    request = request_example(seeds, "tools/list")
    conversation.send(request)
    # The tool files are the seeds' definitions; a 2024-10-07 client receives them as
    # they are, in the seed's order.
    assert conversation.wait(request["id"]) == response_example(seeds, request["id"])


def test_a_call_answers_in_the_seeds_toolresult_shape(
    seeds: list[Any], conversation: Conversation
) -> None:
    request = request_example(seeds, "tools/call")
    conversation.send(request)
    response = conversation.wait(request["id"])
    assert shape(response) == shape(response_example(seeds, request["id"]))
    location = request["params"]["arguments"]["location"]
    units = request["params"]["arguments"]["units"]
    assert response["result"]["toolResult"]["description"] == f"clear over {location} ({units})"
    # The schema's default reaches the handler when the client leaves the argument out.
    defaulted = call(conversation, 100, "get_weather", {"location": "Oslo"})
    assert defaulted["result"]["toolResult"]["description"] == "clear over Oslo (metric)"


def test_invalid_arguments_and_unknown_tools_are_the_seeds_errors(
    seeds: list[Any], conversation: Conversation
) -> None:
    errors = [e for e in seeds if isinstance(e, dict) and "error" in e]
    missing, unknown = errors
    # The seed's invalid-params example is about get_weather without its location.
    assert "location" in missing["error"]["data"]["reason"]
    conversation.send(
        {
            "jsonrpc": "2.0",
            "id": missing["id"],
            "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"units": "metric"}},
        }
    )
    response = conversation.wait(missing["id"])
    assert shape(response) == shape(missing)
    assert response["error"]["message"] == missing["error"]["message"]
    assert '"location" is a required property' in response["error"]["data"]["reason"]

    name = unknown["error"]["data"]["reason"].removeprefix("Unknown tool: ")
    conversation.send(
        {"jsonrpc": "2.0", "id": unknown["id"], "method": "tools/call", "params": {"name": name}}
    )
    assert conversation.wait(unknown["id"]) == unknown  # to the letter


def test_execution_errors_are_reported_inside_the_result(
    seeds: list[Any], conversation: Conversation
) -> None:
    (shown,) = [
        e
        for e in seeds
        if isinstance(e, dict) and "error" in e.get("result", {}).get("toolResult", {})
    ]
    # A handler that returns the seed's kind of value: the value is the toolResult.
    conversation.send(
        {
            "jsonrpc": "2.0",
            "id": shown["id"],
            "method": "tools/call",
            "params": {
                "name": "query_database",
                "arguments": {"query": "SELECT *", "database": "orders"},
            },
        }
    )
    assert shape(conversation.wait(shown["id"])) == shape(shown)
    # A handler that raises ToolError: the same place, {"error": its message}.
    raised = call(conversation, 100, "query_database", {"query": "DROP TABLE users"})
    assert raised["result"] == {
        "toolResult": {"error": "only SELECT queries are allowed, not: DROP TABLE users"}
    }
    rows = call(conversation, 101, "query_database", {"query": "SELECT name FROM users"})
    assert rows["result"]["toolResult"]["database"] == "users"  # the schema's default
    assert [row["name"] for row in rows["result"]["toolResult"]["rows"]] == ["Ada", "Grace"]


def test_the_typescript_sdk_client_negotiates_2024_10_07(project: Path) -> None:
    toolchain = node_toolchain()
    environment = {**os.environ, "NODE_PATH": str(toolchain.node_modules)}
    arguments = {"location": "Lisbon", "units": "imperial"}
    completed = subprocess.run(
        [
            str(toolchain.node),
            str(CLIENT_SCRIPT),
            sys.executable,
            str(project),
            PACKAGE,
            "get_weather",
            json.dumps(arguments),
        ],
        cwd=toolchain.root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    seen = json.loads(completed.stdout)
    # The SDK offers 2025-11-25; the server knows only 2024-10-07, answers with it, and
    # the SDK accepts it.
    assert seen["protocolVersion"] == REVISION
    assert seen["serverInfo"] == {"name": "demo", "version": "1.2.3"}
    assert [tool["name"] for tool in seen["tools"]] == ["get_weather", "query_database"]
    assert all(set(tool) <= {"name", "description", "inputSchema"} for tool in seen["tools"])
    # Parsed by CompatibilityCallToolResultSchema: the toolResult survives as sent.
    called = seen["called"]
    assert called["toolResult"]["description"] == "clear over Lisbon (imperial)"
    assert isinstance(called["toolResult"]["temperature"], int | float)
    assert seen["unknown"] == {"code": -32602, "data": {"reason": "Unknown tool: no_such_tool"}}
