"""The official MCP conformance suite's client scenarios, each against a typed client made
by `mcp-codegen client` from that scenario's tool listing (data/conformance/SCENARIO.json:
the scenario server's tools/list, saved from @modelcontextprotocol/conformance
0.2.0-alpha.11; request-metadata's server lists no tools) and driven by
conformance_runner.py. The suite's exit code decides, and every check it reports must be
SUCCESS (SKIPPED only where the scenario's server offers nothing to exercise it).

Client scenarios that do not apply to a client of this kind (docs/how-to/typed-client.md):
initialize, sse-retry and elicitation-sep1034-client-defaults test the SDK's session
transport and form handling, which the typed client takes as they are from `mcp`;
sep-2322-client-request-state tests the SDK's input_required loop; auth/* test an OAuth
client, which the typed client leaves to the HTTP client it is given."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.node import node_toolchain
from tests.support.paths import needs_shared
from tests.support.projects import run_cli

pytestmark = needs_shared
pytest.importorskip("mcp")

DATA = Path(__file__).with_name("data") / "conformance"
RUNNER = Path(__file__).with_name("conformance_runner.py")
SCENARIOS = [
    ("tools_call", "2025-11-25"),
    ("tools_call", "2026-07-28"),
    ("request-metadata", "2026-07-28"),
    ("http-standard-headers", "2026-07-28"),
    ("http-custom-headers", "2026-07-28"),
    ("http-invalid-tool-headers", "2026-07-28"),
    ("json-schema-ref-no-deref", "2026-07-28"),
    ("json-schema-2020-12-preservation", "2026-07-28"),
]


@pytest.mark.parametrize(("scenario", "version"), SCENARIOS)
def test_client_scenario_passes(scenario: str, version: str, tmp_path: Path) -> None:
    code, _, err = run_cli(
        "client", str(DATA / f"{scenario}.json"), "--out", str(tmp_path),
        "--package", "conformance_client",
    )  # fmt: skip
    assert code == 0, err
    toolchain = node_toolchain()
    environment = {**toolchain.environment(), "PYTHONPATH": str(tmp_path)}
    completed = subprocess.run(
        [
            str(toolchain.bin("conformance")), "client",
            "--command", f"{sys.executable} {RUNNER}",
            "--scenario", scenario, "--spec-version", version,
            "--output-dir", str(tmp_path / "results"),
        ],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=os.getcwd(),
    )  # fmt: skip
    output = re.sub(r"\x1b\[[0-9;]*m", "", completed.stdout + completed.stderr)
    assert completed.returncode == 0, output + completed.stderr
    statuses = re.findall(
        r"^\S+ \[([\w-]+)\s*\] (SUCCESS|FAILURE|WARNING|SKIPPED|INFO)", output, re.M
    )
    assert statuses, output
    assert [s for s in statuses if s[1] in ("FAILURE", "WARNING")] == [], output
    skipped = {check for check, status in statuses if status == "SKIPPED"}
    # http-standard-headers asks for initialize, resources and prompts too, which its
    # server (tools only, 2026-07-28) gives no reason to send.
    assert skipped <= {"sep-2243-client-includes-standard-headers"}, output
    if scenario == "http-invalid-tool-headers":
        assert "tool 'invalid_empty_header' is left out of the client" in err
    if scenario == "json-schema-ref-no-deref":
        assert "tool 'lookup_user' is left out of the client" in err and "network" in err
