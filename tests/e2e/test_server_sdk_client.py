"""End to end over stdio with the official MCP Python SDK client (mcp 2.3.0).

The client runs in each of its connection modes: "legacy" (initialize handshake; it
offers 2025-11-25), "2026-07-28" (the stateless form, adopted without a probe) and
"auto" (server/discover probe, then the stateless form). It validates every response
with its own pydantic models, and structured results against the tool's outputSchema.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.runtime_fixture import PACKAGE, TOOL_NAMES, build_package

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402


@pytest.fixture(scope="module")
def package_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_package(tmp_path_factory.mktemp("sdk"))


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def exercise(root: Path, mode: str, errlog: Path) -> None:
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], cwd=str(root))
    stateless = mode != "legacy"
    with errlog.open("w") as err:
        transport = stdio_client(params, errlog=err)
        async with Client(
            transport,
            mode=mode,
            logging_callback=on_log,
            log_level="info" if stateless else None,
            read_timeout_seconds=15,
        ) as client:
            assert client.protocol_version == ("2026-07-28" if stateless else "2025-11-25")
            if (
                mode != "2026-07-28"
            ):  # adopting a version pin skips discover: no serverInfo, no capabilities
                assert client.server_info is not None and client.server_info.name == "fake"
                assert client.server_capabilities.tools is not None
            if not stateless:
                await client.set_logging_level("info")

            # tools/list, page by page
            names: list[str] = []
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                names += [tool.name for tool in page.tools]
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert names == list(TOOL_NAMES)

            # every tool
            weather = await client.call_tool("get_weather", {"location": "Oslo"})
            assert text_of(weather) == "Oslo: 21 degrees celsius" and not weather.is_error
            invalid = await client.call_tool("get_weather", {"location": "Oslo", "units": "K"})
            assert invalid.is_error and "'units'" in text_of(invalid)  # 2025-11-25 on: a result
            assert text_of(await client.call_tool("server_time", {})) == "2026-07-28T12:00:00Z"
            order = await client.call_tool(
                "create_order",
                {
                    "customer": {"name": "Ada"},
                    "items": [{"sku": "a", "quantity": 2}],
                    "class": "express",
                },
            )
            assert text_of(order) == "order for Ada: 2 items, express shipping"
            divided = await client.call_tool("divide", {"a": 9, "b": 4})
            assert divided.structured_content == {"quotient": 2.25, "remainder": 1}
            assert json.loads(text_of(divided)) == divided.structured_content
            by_zero = await client.call_tool("divide", {"a": 9, "b": 0})
            assert by_zero.is_error and "division by zero" in text_of(by_zero)
            with pytest.raises(MCPError) as broken:
                await client.call_tool("broken_output", {})
            assert broken.value.error.code == -32603
            chart = await client.call_tool("render_chart", {"title": "t"})
            assert [block.type for block in chart.content] == [
                "image",
                "resource_link",
                "audio",
                "resource",
            ]
            assert str(chart.content[1].uri) == "file:///charts/data.csv"
            failed = await client.call_tool("fail", {})
            assert failed.is_error and text_of(failed) == "the tool failed on purpose"
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("no_such_tool", {})
            assert unknown.value.error.code == -32602

            # progress and log messages
            progress: list[tuple[float, float | None, str | None]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append((value, total, message))

            job = await client.call_tool("long_job", {"steps": 2}, progress_callback=on_progress)
            assert text_of(job) == "finished 2 steps"
            assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
            assert [(log.level, log.data) for log in logs] == [
                ("info", {"step": 1}),
                ("info", {"step": 2}),
            ]

            # cancellation: the client abandons the call and sends notifications/cancelled
            with anyio.move_on_after(0.5):
                await client.call_tool("slow", {"seconds": 30})
            assert text_of(await client.call_tool("server_time", {})) == "2026-07-28T12:00:00Z"
    assert "slow: cancelled" in errlog.read_text()


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
def test_sdk_client(mode: str, package_root: Path, tmp_path: Path) -> None:
    async def bounded() -> None:
        with anyio.fail_after(60):
            await exercise(package_root, mode, tmp_path / "stderr.txt")

    anyio.run(bounded)
