"""Every reply of the tasks extension this server sends is valid under the extension's own
JSON Schema: ``CreateTaskResult`` for a tools/call answered with a task (which the pinned
conformance suite checks against the ordinary ``CallToolResult`` instead: its open issue
#424, named in tests/e2e/conformance/expected-failures-2026-07-28.yaml), ``GetTaskResult``
in each status, and the ``tasks/update`` and ``tasks/cancel`` acknowledgements.

tests/runtime/data/ext-tasks-schema.json is schema/draft/schema.json of
github.com/modelcontextprotocol/ext-tasks at e4345978be1f602f1fc48d89051e8559dd5302a6
(Apache-2.0), unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcp_schemagen.runtime.store.tasks import now_ms
from mcp_schemagen.runtime.tasks.records import new_record
from tests.runtime.test_tasks import WITH_TASKS, Client, run, server

SCHEMA = json.loads((Path(__file__).parent / "data" / "ext-tasks-schema.json").read_text())


def valid(definition: str, body: dict[str, Any]) -> None:
    schema = {**SCHEMA, "$ref": f"#/$defs/{definition}"}
    jsonschema.Draft202012Validator(schema).validate(body)


def test_the_schema_refuses_a_malformed_task() -> None:
    """The check can fail: a CreateTaskResult without its taskId is refused."""
    with pytest.raises(jsonschema.ValidationError):
        valid("CreateTaskResult", {"resultType": "task", "status": "working"})


@run
async def test_every_tasks_reply_is_valid_under_the_extensions_schema() -> None:
    client = Client(server(), WITH_TASKS)
    created = (await client.call("sleeper", seconds=30))["result"]
    valid("CreateTaskResult", created)
    working = (await client.request("tasks/get", taskId=created["taskId"]))["result"]
    assert working["status"] == "working"
    valid("GetTaskResult", working)
    cancel = (await client.request("tasks/cancel", taskId=created["taskId"]))["result"]
    valid("CancelTaskResult", cancel)
    valid("GetTaskResult", await client.until(created["taskId"], "cancelled"))

    asker = (await client.call("asker"))["result"]["taskId"]
    asked = await client.until(asker, "input_required")
    valid("GetTaskResult", asked)
    answer = {"ok": {"action": "accept", "content": {"ok": True}}}
    update = await client.request("tasks/update", taskId=asker, inputResponses=answer)
    valid("UpdateTaskResult", update["result"])
    await client.request("tasks/cancel", taskId=asker)

    done = (await client.call("sleeper", seconds=0))["result"]["taskId"]
    completed = await client.until(done, "completed")
    valid("GetTaskResult", completed)
    broken = (await client.call("broken"))["result"]["taskId"]
    valid("GetTaskResult", await client.until(broken, "completed"))


@run
async def test_a_failed_task_is_valid_too() -> None:
    srv = server()
    client = Client(srv, WITH_TASKS)
    assert srv.tasks is not None
    record = new_record("gone", "", "sleeper", 1000, 100, now_ms() - 1)  # its worker died
    await srv.tasks.store.create("gone", record, 1000)
    failed = (await client.request("tasks/get", taskId="gone"))["result"]
    assert failed["status"] == "failed"
    valid("GetTaskResult", failed)
