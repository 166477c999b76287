"""Which tools tools/list shows an authorized client: ``--auth-list-tools callable`` lists
only the tools the token's scopes allow it to call, the default lists them all.

The test project (tests/e2e/authorization) is built with one tool per page, so every list
takes cursors; each page is checked against its revision's schema, over a session
(2025-11-25) and stateless (2026-07-28).
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.authorization_server import AuthorizationServer
from tests.support.authorized_deployment import (
    BASE_SCOPE,
    PACKAGE,
    PROJECT,
    SESSION_REVISION,
    Deployment,
    bearer,
    deployment,
    open_session,
)
from tests.support.http_client import exchange
from tests.support.http_server import build_project, free_port, http_command, serving
from tests.support.spec_check import spec
from tests.support.stdio_conversation import STATELESS, meta

NOTES = "notes:read"
EVERY_TOOL = ["whoami", "whoami_async", "read_notes"]
OPEN_TOOLS = ["whoami", "whoami_async"]
_ids = itertools.count(1)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The authorization test project with one tool per tools/list page."""
    source = tmp_path_factory.mktemp("listing-source") / PROJECT.name
    shutil.copytree(PROJECT, source, ignore=shutil.ignore_patterns("expected-failures-*"))
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text()
    assert "[tool.mcp-codegen]\n" in text
    pyproject.write_text(
        text.replace("[tool.mcp-codegen]\n", "[tool.mcp-codegen]\npage-size = 1\n")
    )
    return build_project(source, tmp_path_factory.mktemp("listing-build"), PACKAGE)


@pytest.fixture(scope="module")
def callable_only(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("listing-callable")
    with deployment(root, folder, extra=["--auth-list-tools", "callable"]) as served:
        yield served


@pytest.fixture(scope="module")
def listing_all(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with deployment(root, tmp_path_factory.mktemp("listing-all")) as served:
        yield served


def checked_page(reply: Any, revision: str) -> dict[str, Any]:
    assert reply.status == 200, reply
    message = reply.last
    assert "result" in message, message
    result: dict[str, Any] = message["result"]
    assert spec(revision).errors(result, "ListToolsResult") == [], result
    return result


def session_list(url: str, token: str) -> list[dict[str, Any]]:
    """Every page of tools/list in a session of the 2025-11-25 revision."""
    session = open_session(url, token)
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": SESSION_REVISION}
    pages, cursor = [], None
    for _ in range(10):
        params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/list", "params": params}
        reply = exchange(url, body=body, headers={**headers, **bearer(token)})
        pages.append(checked_page(reply, SESSION_REVISION))
        cursor = pages[-1].get("nextCursor")
        if cursor is None:
            return pages
    raise AssertionError("tools/list never ended")


def stateless_list(url: str, token: str) -> list[dict[str, Any]]:
    """Every page of tools/list as 2026-07-28 requests, without a session."""
    headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/list"}
    pages, cursor = [], None
    for _ in range(10):
        params: dict[str, Any] = {"_meta": meta()}
        if cursor is not None:
            params["cursor"] = cursor
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/list", "params": params}
        reply = exchange(url, body=body, headers={**headers, **bearer(token)})
        pages.append(checked_page(reply, STATELESS))
        cursor = pages[-1].get("nextCursor")
        if cursor is None:
            return pages
    raise AssertionError("tools/list never ended")


def names(pages: list[dict[str, Any]]) -> list[str]:
    return [tool["name"] for page in pages for tool in page["tools"]]


LISTS = {SESSION_REVISION: session_list, STATELESS: stateless_list}


@pytest.mark.parametrize("revision", LISTS)
def test_callable_lists_only_the_tools_the_token_can_call(
    callable_only: Deployment, revision: str
) -> None:
    issuer, url = callable_only.issuer, callable_only.url
    without = LISTS[revision](url, issuer.mint(scope=BASE_SCOPE))
    assert names(without) == OPEN_TOOLS
    assert len(without) == len(OPEN_TOOLS)  # one per page: the cursors skip no hidden tool
    with_notes = LISTS[revision](url, issuer.mint(scope=f"{BASE_SCOPE} {NOTES}"))
    assert names(with_notes) == EVERY_TOOL
    assert len(with_notes) == len(EVERY_TOOL)
    # Asked again (now from the per-set cache), each token still sees its own list.
    assert names(LISTS[revision](url, issuer.mint(scope=BASE_SCOPE))) == OPEN_TOOLS
    if revision == STATELESS:  # a list that depends on the token may not be shared
        assert {page["cacheScope"] for page in without + with_notes} == {"private"}


def test_a_listed_tool_can_be_called_and_a_hidden_one_cannot(callable_only: Deployment) -> None:
    token = callable_only.issuer.mint(scope=BASE_SCOPE)
    headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/call"}
    for tool, status in (("whoami", 200), ("read_notes", 403)):
        params = {"name": tool, "arguments": {}, "_meta": meta()}
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/call", "params": params}
        reply = exchange(
            callable_only.url, body=body, headers={**headers, "Mcp-Name": tool, **bearer(token)}
        )
        assert reply.status == status, (tool, reply)


@pytest.mark.parametrize("revision", LISTS)
def test_by_default_every_token_sees_every_tool(listing_all: Deployment, revision: str) -> None:
    issuer, url = listing_all.issuer, listing_all.url
    for scope in (BASE_SCOPE, f"{BASE_SCOPE} {NOTES}"):
        pages = LISTS[revision](url, issuer.mint(scope=scope))
        assert names(pages) == EVERY_TOOL
        assert len(pages) == len(EVERY_TOOL)
        if revision == STATELESS:
            assert {page["cacheScope"] for page in pages} == {"public"}


def test_the_environment_variable_sets_the_choice(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("listing-env")
    with deployment(root, folder, env={"MCP_AUTH_LIST_TOOLS": "callable"}) as served:
        token = served.issuer.mint(scope=BASE_SCOPE)
        assert names(stateless_list(served.url, token)) == OPEN_TOOLS
        assert names(session_list(served.url, token)) == OPEN_TOOLS


def test_the_option_alone_refines_settings_from_the_environment(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    folder = tmp_path_factory.mktemp("listing-refined")
    with AuthorizationServer(resource).running() as issuer:
        env = {
            "MCP_AUTH_ISSUERS": issuer.issuer,
            "MCP_AUTH_RESOURCE": resource,
            "MCP_AUTH_SCOPES": BASE_SCOPE,
            "AUTH_TEST_CALLS": str(folder / "calls.txt"),
        }
        command = http_command(PACKAGE, port, "--auth-list-tools", "callable")
        with serving(root, command, port, folder / "server.log", env=env) as url:
            assert exchange(url, body={}).status == 401  # still authorized, from the environment
            assert names(stateless_list(url, issuer.mint(scope=BASE_SCOPE))) == OPEN_TOOLS
            both = issuer.mint(scope=f"{BASE_SCOPE} {NOTES}")
            assert names(stateless_list(url, both)) == EVERY_TOOL


AUTHORIZED = ["--auth-issuer", "https://as.example", "--auth-resource", "https://r.example/mcp"]


@pytest.mark.parametrize(
    "arguments, environment, message",
    [
        (["--http", "--auth-list-tools", "some"], {}, "invalid choice: 'some'"),
        (["--auth-list-tools", "callable"], {}, "--auth-list-tools needs --http"),
        (["--http", "--auth-list-tools", "callable"], {}, "--auth-list-tools needs authorization"),
        (["--http", "--no-auth", "--auth-list-tools", "all"], {}, "contradicts"),
        (
            ["--http", *AUTHORIZED],
            {"MCP_AUTH_LIST_TOOLS": "some"},
            "MCP_AUTH_LIST_TOOLS 'some' is not a choice",
        ),
        (
            ["--http", "--auth-list-tools", "callable"],
            {"MCP_AUTH_ISSUERS": "https://as.example", "MCP_AUTH_RESOURCE": "http://r.example"},
            "must be an https:// URL",
        ),
        (
            ["--http", "--auth-list-tools", "callable"],
            {
                "MCP_AUTH_ISSUERS": "https://as.example",
                "MCP_AUTH_RESOURCE": "https://r.example/mcp",
                "MCP_AUTH_DISABLED": "1",
            },
            "--auth-list-tools needs authorization",
        ),
    ],
)
def test_the_command_line_refuses_a_broken_choice(
    arguments: list[str], environment: dict[str, str], message: str, root: Path
) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MCP_AUTH_")}
    failed = subprocess.run(
        [sys.executable, "-m", PACKAGE, *arguments],
        cwd=root, capture_output=True, text=True, timeout=60, check=False,
        env={**clean, **environment},
    )  # fmt: skip
    assert failed.returncode == 2, failed.stderr
    assert message in failed.stderr, failed.stderr


def test_pyproject_chooses_callable_and_the_option_overrides_it(tmp_path: Path) -> None:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    with AuthorizationServer(resource).running() as issuer:
        source = tmp_path / "source" / PROJECT.name
        shutil.copytree(PROJECT, source)
        with (source / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
            pyproject.write(
                "\n[tool.mcp-codegen.authorization]\n"
                f'issuers = ["{issuer.issuer}"]\nresource = "{resource}"\n'
                f'scopes = ["{BASE_SCOPE}"]\nlist-tools = "callable"\n'
            )
        root = build_project(source, tmp_path / "build", PACKAGE)
        env = {"AUTH_TEST_CALLS": str(tmp_path / "calls.txt")}
        log = tmp_path / "server.log"
        token = issuer.mint(scope=BASE_SCOPE)
        for extra, expected in (([], OPEN_TOOLS), (["--auth-list-tools", "all"], EVERY_TOOL)):
            command = http_command(PACKAGE, port, *extra)
            with serving(root, command, port, log, env=env) as url:
                assert names(stateless_list(url, token)) == expected, extra
                assert names(session_list(url, token)) == expected, extra
