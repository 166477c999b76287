"""Authorization configured in pyproject.toml, not on the command line: the generated
server enforces it with a bare ``--http``; ``--no-auth`` turns it off on purpose."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.support.authorization_server import AuthorizationServer
from tests.support.authorized_deployment import (
    BASE_SCOPE,
    PACKAGE,
    PROJECT,
    challenge_fields,
    initialize,
    stateless_call,
)
from tests.support.http_server import build_project, free_port, http_command, serving


def test_pyproject_settings_protect_the_server(tmp_path: Path) -> None:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    with AuthorizationServer(resource).running() as issuer:
        source = tmp_path / "source" / PROJECT.name
        shutil.copytree(PROJECT, source)
        with (source / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
            pyproject.write(
                "\n[tool.mcp-codegen.authorization]\n"
                f'issuers = ["{issuer.issuer}"]\nresource = "{resource}"\n'
                f'scopes = ["{BASE_SCOPE}"]\n'
            )
        root = build_project(source, tmp_path / "build", PACKAGE)
        calls = tmp_path / "calls.txt"
        env = {"AUTH_TEST_CALLS": str(calls)}
        log = tmp_path / "server.log"
        with serving(root, http_command(PACKAGE, port), port, log, env=env) as url:
            refused = initialize(url, None)
            assert refused.status == 401
            assert challenge_fields(refused)["scope"] == BASE_SCOPE
            token = issuer.mint(scope=BASE_SCOPE)
            assert stateless_call(url, token, "whoami").status == 200
            assert stateless_call(url, token, "read_notes").status == 403
        assert calls.read_text().split() == ["whoami"]
        # MCP_AUTH_DISABLED=0 (a variable left in a deployment) keeps authorization on.
        zero = {**env, "MCP_AUTH_DISABLED": "0"}
        with serving(root, http_command(PACKAGE, port), port, log, env=zero) as url:
            assert initialize(url, None).status == 401
        with serving(root, http_command(PACKAGE, port, "--no-auth"), port, log, env=env) as url:
            assert initialize(url, None).status == 200
        assert (
            "AUTHORIZATION IS OFF (MCP_AUTH_DISABLED=everywhere): EVERY TOOL IS SERVED TO "
            "ANYONE WHO CAN REACH THIS PORT" in log.read_text()
        )
        failed = subprocess.run(
            http_command(PACKAGE, port), cwd=root, capture_output=True, text=True,
            timeout=60, check=False, env={**os.environ, "MCP_AUTH_DISABLED": "maybe"},
        )  # fmt: skip
        assert failed.returncode == 2
        assert "MCP_AUTH_DISABLED='maybe' is not a choice" in failed.stderr


def test_opaque_tokens_are_checked_by_introspection(tmp_path: Path) -> None:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    root = build_project(PROJECT, tmp_path / "build", PACKAGE)
    with AuthorizationServer(resource).running() as issuer:
        calls = tmp_path / "calls.txt"
        env = {
            "AUTH_TEST_CALLS": str(calls),
            "MCP_AUTH_CLIENT_ID": "rs",
            "MCP_AUTH_CLIENT_SECRET": "rs-secret",
        }
        command = http_command(
            PACKAGE, port, "--auth-issuer", issuer.issuer, "--auth-resource", resource,
            "--auth-scope", BASE_SCOPE, "--auth-introspection-url", issuer.issuer + "/introspect",
        )  # fmt: skip
        with serving(root, command, port, tmp_path / "server.log", env=env) as url:
            # The server never reads these tokens itself: the authorization server says.
            good = issuer.mint(scope=BASE_SCOPE, subject="dora")
            reply = stateless_call(url, good, "whoami")
            assert reply.status == 200
            assert reply.last["result"]["content"][0]["text"].startswith("dora ")
            for bad in (
                issuer.mint(scope=BASE_SCOPE, lifetime=-120),  # inactive: expired
                issuer.mint(scope=BASE_SCOPE, audience="https://elsewhere.example/mcp"),
                "opaque-and-unknown",
            ):
                assert stateless_call(url, bad, "whoami").status == 401
            assert stateless_call(url, good, "read_notes").status == 403
        assert calls.read_text().split() == ["whoami"]
        log = (tmp_path / "server.log").read_text()
        assert good not in log and "introspection: token not active" in log
