"""The example's typed client (example_server/client.py) against the example server over
stdio, Streamable HTTP (a 2025-11-25 session and stateless 2026-07-28) and in process:
every tool and the prompt, each typed result equal to what the SDK client underneath
receives for the same call (example_scenario.py, run in a fresh interpreter). And mypy
--strict refuses a call with a wrong argument type or a misspelt argument."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.docs import block
from tests.support.http_server import free_port, http_command, serving
from tests.support.projects import build_embedded_example

pytest.importorskip("mcp")

SCENARIO = Path(__file__).with_name("example_scenario.py")
EXPECTED_PROTOCOL = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28", "auto": "2026-07-28"}


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("client"))


def run_scenario(out: Path, *arguments: str) -> str:
    environment = {**os.environ, "PYTHONPATH": str(out)}
    result = subprocess.run(
        [sys.executable, str(SCENARIO), *arguments],
        cwd=out,
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def assert_every_call(output: str, mode: str) -> None:
    lines = output.splitlines()
    assert lines[0] == f"protocol {EXPECTED_PROTOCOL[mode]}"
    tools = sorted(line.split()[1] for line in lines if line.startswith("tool "))
    assert tools == sorted(
        [
            "cancel_order",
            "create_order",
            "divide",
            "get_weather",
            "list_workspace",
            "plan_trip",
            "render_chart",
            "server_time",
            "shape_area",
            "summarize_forecast",
            "weather_forecast",
        ]
    )
    assert "tool plan_trip content Booked 2 nights in Rome for Grace" in output
    assert "isError divide cannot divide by zero" in output
    assert "refused locally [('/location', " in output
    assert "refused by the server True" in output
    assert "prompt weather_briefing 2" in output
    assert "completed ['pirate', 'plain'] ['bergen-florida']" in output
    assert "completion refused locally no resource template 'nowhere'" in output
    assert (
        "listed ['docs://example/units'] ['weather://stations/{station}/latest{?units}']" in output
    )
    assert "resource docs://example/units " in output
    assert 'resource weather://stations/oslo-blindern/latest {"station": "oslo-blindern", "te' in (
        output
    )
    assert "resource weather://stations/tromso-langnes/latest?units=fahrenheit " in output
    assert "resource refused locally resource template /station" in output


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
def test_in_process(example: Path, mode: str) -> None:
    assert_every_call(run_scenario(example, "in-process", mode), mode)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_stdio(example: Path, mode: str) -> None:
    assert_every_call(run_scenario(example, "stdio", mode), mode)


def test_http_both_eras(example: Path, tmp_path: Path) -> None:
    port = free_port()
    command = http_command("example_server", port)
    with serving(example, command, port, tmp_path / "server.log") as url:
        for mode in ("legacy", "2026-07-28"):
            assert_every_call(run_scenario(example, "http", mode, url), mode)


SNIPPET = """
from example_server.client import Client


async def use(client: Client) -> None:
    forecast = await client.tools.weather_forecast(location="Oslo", days=2)
    reveal_type(forecast["days"][0]["high"])
    await client.tools.weather_forecast(location="Oslo", days="two")
    await client.tools.get_weather(locaton="Oslo")
    await client.tools.get_weather(location="Oslo", units="kelvin")
    await client.prompts.weather_briefing(city="Oslo", style="limerick")
    contents = await client.resources.read_station_latest(station="bergen-florida")
    reveal_type(contents)
    await client.resources.read_station_latest(staton="bergen-florida")
    await client.resources.read_station_latest(station="bergen-florida", units="kelvin")
    await client.resources.read_units_guide(units="celsius")
"""


def test_mypy_refuses_a_wrong_type_and_a_misspelt_argument(example: Path) -> None:
    (example / "use_client.py").write_text(SNIPPET, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "use_client.py"],
        cwd=example,
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [
        line for line in result.stdout.splitlines() if ": error:" in line or ": note:" in line
    ]
    assert any('use_client.py:7: note: Revealed type is "float"' in e for e in errors), errors
    assert any(
        'use_client.py:8: error: Argument "days" to "weather_forecast" of "ClientTools" has '
        'incompatible type "str"; expected "int"' in e
        for e in errors
    ), errors
    assert any(
        'use_client.py:9: error: Unexpected keyword argument "locaton" for "get_weather"' in e
        for e in errors
    ), errors
    assert any('use_client.py:10: error: Argument "units"' in e for e in errors), errors
    assert any('use_client.py:11: error: Argument "style"' in e for e in errors), errors
    assert any(
        'use_client.py:13: note: Revealed type is "list['
        "mcp_types._types.TextResourceContents | mcp_types._types.BlobResourceContents]" in e
        for e in errors
    ), errors
    assert any(
        'use_client.py:14: error: Unexpected keyword argument "staton" for '
        '"read_station_latest"' in e
        for e in errors
    ), errors
    assert any(
        'use_client.py:15: error: Argument "units" to "read_station_latest"' in e for e in errors
    ), errors
    assert any(
        'use_client.py:16: error: Unexpected keyword argument "units" for "read_units_guide"' in e
        for e in errors
    ), errors
    assert result.returncode == 1


def test_the_typed_client_guide_example_runs_as_written(example: Path, tmp_path: Path) -> None:
    code = block("how-to/typed-client.md", "# The typed client", "python")
    script = tmp_path / "guide_example.py"
    script.write_text(code + "\n\nimport anyio\n\nanyio.run(test_forecast)\nprint('ok')\n")
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=example,
        env={**os.environ, "PYTHONPATH": str(example)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr
