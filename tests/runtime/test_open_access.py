"""``MCP_AUTH_DISABLED`` and the loopback rule, through the ASGI app in process (the app
that ``PACKAGE.asgi:app`` is under gunicorn or granian, where no command line checks
``--host``): which connections are served without authorization, what the refusal says,
and that no value but the documented ones turns authorization off."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcp_schemagen.runtime.auth.settings import AuthConfigError, AuthSettings
from mcp_schemagen.runtime.http.app import McpHttpApp
from mcp_schemagen.runtime.http.open_access import disabled
from mcp_schemagen.runtime.registry import ToolEntry
from mcp_schemagen.runtime.server import Server

REVISION = "2025-11-25"


def echo(text: str) -> str:
    return text


def _app() -> McpHttpApp:
    entry = ToolEntry(
        name="echo",
        published={REVISION: {"name": "echo", "inputSchema": {"type": "object"}}},
        input_schema={"type": "object"},
        output_schema=None,
        handler=echo,
        arguments={"text": "text"},
        defaults={},
    )
    return McpHttpApp(Server(tools=[entry], name="t", version="1", revisions=[REVISION]))


def _get(app: McpHttpApp, server: Any) -> tuple[int, bytes]:
    """GET /mcp/health arriving on the local address ``server``: status and body."""
    scope = {
        "type": "http", "method": "GET", "path": "/mcp/health", "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")], "server": server, "client": ("192.0.2.99", 5),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body


@pytest.fixture(autouse=True)
def no_auth_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MCP_AUTH_ISSUERS", "MCP_AUTH_RESOURCE", "MCP_AUTH_DISABLED"):
        monkeypatch.delenv(name, raising=False)


ELSEWHERE = ("192.0.2.10", 8000)
LOOPBACKS = [("127.0.0.1", 8000), ("::1", 8000), ("127.0.0.2", 80), None, ("/run/mcp.sock", None)]


@pytest.mark.parametrize("value", [None, "1", "true", "loopback", "0", "false", ""])
def test_without_authorization_only_loopback_connections_are_served(
    value: str | None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if value is not None:
        monkeypatch.setenv("MCP_AUTH_DISABLED", value)
    app = _app()
    for server in LOOPBACKS:
        assert _get(app, server)[0] == 200, server
    status, body = _get(app, ELSEWHERE)
    assert status == 403
    assert b"MCP_AUTH_DISABLED=everywhere" in body
    err = capsys.readouterr().err
    assert "refused a connection to ('192.0.2.10', 8000)" in err
    announced = "AUTHORIZATION IS OFF (MCP_AUTH_DISABLED=loopback)" in err
    assert announced == (value in ("1", "true", "loopback"))


def test_everywhere_serves_every_address_and_says_so_loudly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MCP_AUTH_DISABLED", "everywhere")
    app = _app()
    assert _get(app, ELSEWHERE)[0] == 200
    assert (
        "WARNING: AUTHORIZATION IS OFF (MCP_AUTH_DISABLED=everywhere): EVERY TOOL IS SERVED "
        "TO ANYONE WHO CAN REACH THIS PORT" in capsys.readouterr().err
    )


def test_a_zero_keeps_configured_authorization_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_AUTH_ISSUERS", "https://as.example")
    monkeypatch.setenv("MCP_AUTH_RESOURCE", "https://mcp.example/mcp")
    for value in ("0", "false", "no", "off", ""):
        monkeypatch.setenv("MCP_AUTH_DISABLED", value)
        app = _app()
        assert type(app.guard).__name__ == "Guard", value


@pytest.mark.parametrize("value", ["maybe", "2", "disabled", "everywhere please"])
def test_any_other_value_stops_the_start(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(AuthConfigError, match="is not a choice: 1 turns authorization off"):
        disabled({"MCP_AUTH_DISABLED": value})
    monkeypatch.setenv("MCP_AUTH_DISABLED", value)
    with pytest.raises(SystemExit, match="MCP_AUTH_DISABLED="):
        _app()


def test_the_settings_repr_holds_no_client_secret() -> None:
    settings = AuthSettings(
        issuers=("https://as.example",),
        resource="https://mcp.example/mcp",
        introspection_url="https://as.example/introspect",
        client_id="rs",
        client_secret="s3cr3t-value",
    )
    assert "s3cr3t-value" not in repr(settings) and "client_secret" not in repr(settings)
    assert "client_id='rs'" in repr(settings)


@pytest.mark.parametrize("value, refused", [("1", True), ("0", True), ("everywhere", False)])
def test_the_command_line_serves_another_address_open_only_when_told_everywhere(
    value: str, refused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse

    from mcp_schemagen.runtime.http.auth_setup import add_arguments, configure

    monkeypatch.setenv("MCP_AUTH_DISABLED", value)
    cli = argparse.ArgumentParser()
    cli.add_argument("--http", action="store_true")
    cli.add_argument("--host")
    add_arguments(cli)
    args = cli.parse_args(["--http", "--host", "192.0.2.10"])
    if refused:
        with pytest.raises(SystemExit):
            configure(args, cli, {})
    else:
        configure(args, cli, {})
