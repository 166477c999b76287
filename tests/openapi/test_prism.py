"""A document we cannot run, served by a mock generated from it: Prism (npm
`@stoplight/prism-cli`, locked in tests/support/node_packages) mocks Twilio's Accounts API
from its published description on 127.0.0.1, checking each request against the document
(credentials, form body) as the real API would. The same document is imported, built and
served over stdio; the official MCP Python SDK client calls the tools, and the typed
results are what Prism answers; Prism's refusals come back as isError results with the
status and the body's start."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.support.http_server import free_port
from tests.support.node import node_toolchain
from tests.support.projects import run_cli, write_project

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

DOCUMENT = Path(__file__).parent / "documents" / "real" / "twilio_accounts_v1.json.gz"
DOCUMENT_NAME = "twilio_accounts_v1.json"
START_TIMEOUT_S = 90.0
CREDENTIALS = {
    "TWILIO_ACCOUNTS_ACCOUNTSID_AUTHTOKEN_USERNAME": "AC0123",
    "TWILIO_ACCOUNTS_ACCOUNTSID_AUTHTOKEN_PASSWORD": "token-never-shown",
}
AUTH = ("AC0123", "token-never-shown")
SID = "CR" + "a" * 32


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("prism")
    (folder / DOCUMENT_NAME).write_bytes(gzip.decompress(DOCUMENT.read_bytes()))
    return folder


@pytest.fixture(scope="module")
def prism(folder: Path) -> Iterator[str]:
    """Prism's mock of the document on a free port of 127.0.0.1: its base URL."""
    toolchain = node_toolchain()
    port = free_port()
    environment = {**toolchain.environment(), "SCARF_ANALYTICS": "false"}
    log = (folder / "prism.log").open("wb")
    process = subprocess.Popen(
        [str(toolchain.bin("prism")), "mock", *("-h", "127.0.0.1", "-p", str(port)), DOCUMENT_NAME],
        cwd=folder,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while b"Prism is listening" not in (folder / "prism.log").read_bytes():
            assert process.poll() is None, (folder / "prism.log").read_text()
            assert time.monotonic() < deadline, "Prism did not start"
            time.sleep(0.5)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def project(folder: Path) -> Path:
    root = write_project(folder / "project", {}, revisions=("2025-11-25",))
    spec = folder / DOCUMENT_NAME
    code, _, err = run_cli("import", "openapi", str(spec), "--dir", str(root))
    assert code == 0, err
    assert "imported 20 of 20 operations" in err
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    return root


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def call_tools(root: Path, environment: dict[str, str], calls: list[Any]) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "server"], cwd=str(root), env=environment
    )
    with (root / "stderr.txt").open("a") as err:
        async with Client(
            stdio_client(params, errlog=err), mode="legacy", read_timeout_seconds=30
        ) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]


def served(root: Path, environment: dict[str, str], calls: list[Any]) -> list[Any]:
    async def bounded() -> list[Any]:
        with anyio.fail_after(120):
            return await call_tools(root, environment, calls)

    return anyio.run(bounded)


def test_tools_reach_prism_and_its_typed_answers_come_back(
    project: Path, prism: str, folder: Path
) -> None:
    environment = {**os.environ, "TWILIO_ACCOUNTS_BASE_URL": prism, **CREDENTIALS}
    log = folder / "prism.log"
    before = len(log.read_bytes())
    listed, created, fetched = served(
        project,
        environment,
        [
            ("ListCredentialAws", {"PageSize": 20}),
            ("CreateCredentialAws", {"Credentials": "AKIA:secret", "FriendlyName": "ci"}),
            ("FetchCredentialAws", {"Sid": SID}),
        ],
    )
    # Prism checked each request the server sent against the document: all three passed.
    seen = log.read_bytes()[before:].decode()
    assert seen.count("Request received") == 3
    assert seen.count("The request passed the validation rules") == 3
    # What Prism answers these very requests (it answers from the document's examples).
    with httpx2.Client(base_url=prism, auth=AUTH, timeout=15) as http:
        expected_list = http.get("/v1/Credentials/AWS", params={"PageSize": 20}).json()
        expected_create = http.post(
            "/v1/Credentials/AWS", data={"Credentials": "AKIA:secret", "FriendlyName": "ci"}
        )
        expected_fetch = http.get(f"/v1/Credentials/AWS/{SID}").json()
    assert expected_create.status_code == 201
    for result in (listed, created, fetched):
        assert not result.is_error, text_of(result)
    assert listed.structured_content == expected_list
    assert created.structured_content == expected_create.json()
    assert created.structured_content["sid"].startswith("CR")
    assert fetched.structured_content == expected_fetch
    assert "token-never-shown" not in (project / "stderr.txt").read_text(encoding="utf-8")


def test_prisms_refusals_are_error_results_with_status_and_body(project: Path, prism: str) -> None:
    with_credentials = {**os.environ, "TWILIO_ACCOUNTS_BASE_URL": prism, **CREDENTIALS}
    (invalid,) = served(
        project, with_credentials, [("CreateCredentialAws", {"FriendlyName": "no keys"})]
    )
    assert invalid.is_error
    said = text_of(invalid)
    assert said.startswith("POST /v1/Credentials/AWS: HTTP 422 Unprocessable Entity: {")
    refusal = json.loads(said.split(": ", 2)[2])
    assert refusal["validation"][0]["message"] == (
        "Request body must have required property 'Credentials'"
    )
    # No credentials set: Prism refuses as Twilio would, and the result says so.
    without = {k: v for k, v in with_credentials.items() if k not in CREDENTIALS}
    (refused,) = served(project, without, [("ListCredentialAws", {})])
    assert refused.is_error
    said = text_of(refused)
    assert said.startswith("GET /v1/Credentials/AWS: HTTP 401 Unauthorized: {")
    assert json.loads(said.split(": ", 2)[2])["title"] == "Invalid security scheme used"
