"""End to end with real parts: a real HTTP API (Starlette under uvicorn on 127.0.0.1)
serves its own /openapi.json; the test fetches it, imports it, builds the project, checks
the generated package with `mypy --strict`, serves it over stdio and calls every tool
through the official MCP Python SDK client. The API records each request: it must receive
exactly the method, path, query, headers and body the tool call implies, and the
credential from the environment, nothing from the MCP side."""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.support.http_server import free_port, http_command, serving
from tests.support.projects import mypy_strict, run_cli, write_project

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

ITEM_ID = {"name": "item_id", "in": "path", "required": True, "schema": {"type": "integer"}}
ITEM = {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Shop", "version": "1"},
    "servers": [{"url": "https://shop.invalid"}],  # the test points SHOP_BASE_URL at the app
    "security": [{"key": []}],
    "components": {
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            # tokenUrl: set to the app's own /token when the document is served
            "robot": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "", "scopes": {"read": ""}}},
            },
            "stranger": {  # its token endpoint refuses
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "", "scopes": {}}},
            },
        },
        "schemas": {
            "Item": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "integer", "readOnly": True},
                    "name": {"type": "string"},
                    "price": {"type": "number"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
            }
        },
    },
    "paths": {
        "/items/{item_id}": {
            "get": {
                "operationId": "getItem",
                "summary": "One item",
                "parameters": [
                    ITEM_ID,
                    {
                        "name": "fields",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "string"}},
                    },
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                    # named like what the generated call itself uses
                    {"name": "call", "in": "query", "schema": {"type": "string"}},
                    {"name": "cast", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "the item", "content": ITEM}},
            },
            "put": {
                "operationId": "putItem",
                "parameters": [ITEM_ID],
                "requestBody": {"required": True, "content": ITEM},
                "responses": {"200": {"description": "the item", "content": ITEM}},
            },
            "delete": {
                "operationId": "deleteItem",
                "parameters": [ITEM_ID],
                "responses": {"204": {"description": "gone"}},
            },
        },
        "/search": {
            "post": {
                "operationId": "search",
                "requestBody": {
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "q": {"type": "string"},
                                    "limit": {"type": "integer"},
                                },
                                "required": ["q"],
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "hits", "content": {"text/plain": {}}}},
            }
        },
        "/me": {
            "get": {
                "operationId": "whoami",
                "security": [{"robot": ["read"]}],
                "responses": {
                    "200": {
                        "description": "",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
        "/refused": {
            "get": {
                "operationId": "refused",
                "security": [{"stranger": []}],
                "responses": {"204": {"description": "never reached"}},
            }
        },
        "/logo": {
            "get": {
                "operationId": "logo",
                "responses": {"200": {"description": "", "content": {"image/png": {}}}},
            }
        },
        "/broken": {
            "get": {
                "operationId": "broken",
                "responses": {
                    "200": {
                        "description": "",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
    },
}
PNG = b"\x89PNG\r\n\x1a\n not really an image"
# Headers every request carries whatever the tool (set by httpx); the rest must be the tool's.
TRANSPORT_HEADERS = {
    "host",
    "accept",
    "accept-encoding",
    "connection",
    "user-agent",
    "content-length",
}


class Api:
    """The upstream API: its document, and every request it received."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def document(self, request: Request) -> Response:
        served = json.loads(json.dumps(DOCUMENT))
        flows = served["components"]["securitySchemes"]["robot"]["flows"]
        flows["clientCredentials"]["tokenUrl"] = f"{request.base_url}token"
        strange = served["components"]["securitySchemes"]["stranger"]["flows"]
        strange["clientCredentials"]["tokenUrl"] = f"{request.base_url}token-refused"
        return JSONResponse(served)

    async def anything(self, request: Request) -> Response:
        body = await request.body()
        self.requests.append(
            {
                "method": request.method,
                "path": request.url.path,
                "query": list(request.query_params.multi_items()),
                "headers": {k: v for k, v in request.headers.items() if k not in TRANSPORT_HEADERS},
                "body": body.decode(),
            }
        )
        if request.url.path == "/token-refused":
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if request.url.path == "/token":
            return JSONResponse(
                {"access_token": "tok-1", "token_type": "bearer", "expires_in": 3600}
            )
        if request.url.path == "/me":
            return JSONResponse({"user": "robot"})
        if request.url.path == "/logo":
            return Response(PNG, media_type="image/png")
        if request.url.path == "/broken":
            return PlainTextResponse("upstream down for maintenance", status_code=503)
        if request.url.path == "/search":
            return PlainTextResponse("found 2 lamps")
        if request.method == "DELETE":
            return Response(status_code=204)
        if request.method == "PUT":
            return JSONResponse({"id": 7, **json.loads(body)})
        return JSONResponse({"id": 7, "name": "lamp", "price": 9.5})


@pytest.fixture(scope="module")
def api() -> Iterator[tuple[Api, str]]:
    shop = Api()
    app = Starlette(
        routes=[
            Route("/openapi.json", shop.document),
            Route("/{rest:path}", shop.anything, methods=["GET", "PUT", "POST", "DELETE"]),
        ]
    )
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the API did not start"
        time.sleep(0.02)
    try:
        yield shop, f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def calls(root: Path, base_url: str) -> dict[str, Any]:
    environment = {
        **os.environ,
        "SHOP_BASE_URL": base_url,
        "SHOP_KEY": "s3cret",
        "SHOP_ROBOT_CLIENT_ID": "robot",
        "SHOP_ROBOT_CLIENT_SECRET": "hush",
        "SHOP_STRANGER_CLIENT_ID": "who",
        "SHOP_STRANGER_CLIENT_SECRET": "knows",
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "server"], cwd=str(root), env=environment
    )
    results: dict[str, Any] = {}
    with (root / "stderr.txt").open("w") as err:
        async with Client(
            stdio_client(params, errlog=err), mode="legacy", read_timeout_seconds=20
        ) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert sorted(listed) == [
                "broken",
                "deleteItem",
                "getItem",
                "logo",
                "putItem",
                "refused",
                "search",
                "whoami",
            ]
            assert listed["getItem"].annotations is not None
            assert listed["getItem"].annotations.read_only_hint is True
            assert listed["deleteItem"].annotations is not None
            assert listed["deleteItem"].annotations.destructive_hint is True
            results["get"] = await client.call_tool(
                "getItem",
                {
                    "item_id": 7,
                    "fields": ["name", "price"],
                    "X-Trace": "t-1",
                    "session": "s-9",
                    "call": "c",
                    "cast": "d",
                },
            )
            results["put"] = await client.call_tool(
                "putItem", {"item_id": 7, "name": "desk", "price": 20, "tags": ["oak"]}
            )
            results["delete"] = await client.call_tool("deleteItem", {"item_id": 7})
            results["search"] = await client.call_tool("search", {"q": "lamp", "limit": 2})
            results["broken"] = await client.call_tool("broken", {})
            results["me"] = [await client.call_tool("whoami", {}) for _ in range(2)]
            results["logo"] = await client.call_tool("logo", {})
            results["refused"] = await client.call_tool("refused", {})
    return results


@pytest.fixture(scope="module")
def project(api: tuple[Api, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The API's own /openapi.json imported into a new project, built and type-checked."""
    _, base_url = api
    folder = tmp_path_factory.mktemp("imported")
    spec = folder / "openapi.json"
    spec.write_bytes(httpx2.get(f"{base_url}/openapi.json").content)
    root = write_project(folder / "project", {}, revisions=("2025-11-25",))
    code, _, err = run_cli("import", "openapi", str(spec), "--dir", str(root))
    assert code == 0, err
    assert "imported 8 of 8 operations" in err
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    return root


def test_the_generated_package_passes_mypy_strict(project: Path) -> None:
    handlers = (project / "server" / "handlers.py").read_text(encoding="utf-8")
    assert "return await upstream.getItem(" in handlers
    checked = mypy_strict(project, "server")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_imported_api_is_called_exactly_through_the_sdk_client(
    project: Path, api: tuple[Api, str]
) -> None:
    shop, base_url = api
    root = project
    shop.requests.clear()

    async def bounded() -> dict[str, Any]:
        with anyio.fail_after(60):
            return await calls(root, base_url)

    results = anyio.run(bounded)
    key = {"x-key": "s3cret"}
    get, put, delete, search, failing, token, me, again, logo, refusal = shop.requests
    assert get == {
        "method": "GET",
        "path": "/items/7",
        "query": [("fields", "name"), ("fields", "price"), ("call", "c"), ("cast", "d")],
        "headers": {**key, "x-trace": "t-1", "cookie": "session=s-9"},
        "body": "",
    }
    assert results["get"].structured_content == {"id": 7, "name": "lamp", "price": 9.5}
    assert put["method"] == "PUT" and put["path"] == "/items/7" and put["query"] == []
    assert put["headers"] == {**key, "content-type": "application/json"}
    assert json.loads(put["body"]) == {"name": "desk", "price": 20, "tags": ["oak"]}
    assert results["put"].structured_content == {
        "id": 7,
        "name": "desk",
        "price": 20,
        "tags": ["oak"],
    }
    assert delete == {
        "method": "DELETE",
        "path": "/items/7",
        "query": [],
        "headers": key,
        "body": "",
    }
    assert not results["delete"].is_error and text_of(results["delete"]) == "HTTP 204"
    assert search["headers"] == {**key, "content-type": "application/x-www-form-urlencoded"}
    assert search["body"] == "q=lamp&limit=2"
    assert text_of(results["search"]) == "found 2 lamps"
    assert failing["path"] == "/broken" and failing["headers"] == key
    assert results["broken"].is_error
    assert text_of(results["broken"]) == (
        "GET /broken: HTTP 503 Service Unavailable: upstream down for maintenance"
    )
    # OAuth 2 client credentials: one token request (basic auth, the scope), then reused.
    assert token["method"] == "POST" and token["path"] == "/token"
    assert token["headers"]["authorization"] == "Basic cm9ib3Q6aHVzaA=="  # robot:hush
    assert token["body"] == "grant_type=client_credentials&scope=read"
    assert me["headers"] == again["headers"] == {"authorization": "Bearer tok-1"}
    assert [r.structured_content for r in results["me"]] == [{"user": "robot"}] * 2
    # A binary body: an image block of exactly the bytes the API sent.
    assert logo["path"] == "/logo"
    (block,) = results["logo"].content
    assert block.type == "image" and block.mime_type == "image/png"
    assert base64.b64decode(block.data) == PNG
    # A token endpoint that refuses: an error result, and the operation is never sent.
    assert refusal["path"] == "/token-refused"
    assert results["refused"].is_error
    assert (
        text_of(results["refused"]) == "GET /refused: no OAuth token could be had (HTTPStatusError)"
    )
    assert "s3cret" not in (root / "stderr.txt").read_text(encoding="utf-8")


def test_the_mcp_clients_token_never_reaches_the_api(
    project: Path, api: tuple[Api, str], tmp_path: Path
) -> None:
    """Over Streamable HTTP the MCP client sends its own bearer token; the upstream API
    gets the API's credential from the environment and nothing of the MCP request's."""
    from mcp.client.streamable_http import streamable_http_client

    shop, base_url = api
    shop.requests.clear()
    port = free_port()
    environment = {"SHOP_BASE_URL": base_url, "SHOP_KEY": "s3cret"}
    command = http_command("server", port)

    async def call(url: str) -> Any:
        headers = {"Authorization": "Bearer mcp-client-token", "X-Trace": "from-mcp"}
        async with httpx2.AsyncClient(headers=headers, timeout=15) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode="legacy", read_timeout_seconds=15) as client:
                return await client.call_tool("getItem", {"item_id": 3})

    with serving(project, command, port, tmp_path / "server.log", env=environment) as url:

        async def bounded() -> Any:
            with anyio.fail_after(60):
                return await call(url)

        result = anyio.run(bounded)
    assert result.structured_content == {"id": 7, "name": "lamp", "price": 9.5}
    (received,) = shop.requests
    assert received["path"] == "/items/3"
    assert received["headers"] == {"x-key": "s3cret"}
