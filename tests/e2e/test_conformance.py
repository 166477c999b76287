"""The official MCP conformance suite against a generated server, over Streamable HTTP.

The fixture project tests/e2e/conformance (tool schema files and a handler module, built
by mcp-codegen like any user project) carries the tools the suite's server scenarios call.
``conformance server --requirements REV`` runs exactly the scenarios revision REV
requires; what this server does not do yet is listed, each with its reason, in
tests/e2e/conformance/expected-failures-REV.yaml. The suite's exit code decides: any other
failure or warning, or an expected failure that now passes, fails the test.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    build_project,
    free_port,
    http_command,
    serving,
)
from tests.support.node import node_toolchain
from tests.support.paths import needs_shared

PACKAGE = "conformance_server"
SUITE_TIMEOUT_S = 900

pytestmark = needs_shared


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("conformance")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    port = free_port()
    with serving(root, http_command(PACKAGE, port), port, folder / "server.log") as url:
        yield url


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_official_conformance_suite_passes(revision: str, server_url: str, tmp_path: Path) -> None:
    toolchain = node_toolchain()
    expected = CONFORMANCE_PROJECT / f"expected-failures-{revision}.yaml"
    completed = subprocess.run(
        [
            str(toolchain.bin("conformance")), "server", "--url", server_url,
            "--requirements", revision, "--expected-failures", str(expected),
            "--output-dir", str(tmp_path / "results"),
        ],
        env=toolchain.environment(),
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT_S,
        check=False,
    )  # fmt: skip
    summary = completed.stdout[completed.stdout.find("=== SUMMARY ===") :]
    assert completed.returncode == 0, summary + completed.stderr
    assert "Baseline check passed" in completed.stdout
    # Belt and braces: every scenario shown failing is one the file lists (the suite's
    # baseline check leaves some scenarios out of its verdict).
    listed = {
        line.strip().removeprefix("- ").split("#")[0].strip().split(":")[0]
        for line in expected.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("- ")
    }
    shown = re.findall(r"^[✓✗] ([\w./-]+):", summary, flags=re.MULTILINE)
    failing = re.findall(r"^✗ ([\w./-]+):", summary, flags=re.MULTILINE)
    assert shown, summary  # the summary was read (a requirement set may have no failure)
    assert set(failing) <= listed, set(failing) - listed
