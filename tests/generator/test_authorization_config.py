"""``[tool.mcp-codegen.authorization]`` in pyproject.toml: checked with file#/pointer
errors, and written into the package's ``_authorization.py`` as MCP_AUTH_* defaults."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.projects import run_cli, tool, write_project

AT = "pyproject.toml#/tool/mcp-codegen/authorization"
GOOD = """
[tool.mcp-codegen.authorization]
issuers = ["https://keycloak.example.com/realms/mcp"]
resource = "https://mcp.example.com/mcp"
scopes = ["mcp:tools"]
algorithms = ["RS256"]
leeway-seconds = 10
list-tools = "callable"
"""

BAD = {
    "not a table": ('authorization = "on"\n', [f"{AT}: error: must be a table"]),
    "unknown key": (
        GOOD + 'issuer = "x"\n',
        [f"{AT}/issuer: error: unknown key; known keys: issuers, resource"],
    ),
    "issuers missing": (
        '[tool.mcp-codegen.authorization]\nresource = "https://mcp.example.com/mcp"\n',
        [f"{AT}/issuers: error: must be a non-empty list of strings"],
    ),
    "plain http issuer": (
        GOOD.replace("https://keycloak", "http://keycloak"),
        [
            f"{AT}/issuers/0: error: issuer 'http://keycloak.example.com/realms/mcp' must be an https:// URL"
        ],
    ),
    "resource missing": (
        '[tool.mcp-codegen.authorization]\nissuers = ["https://a.example"]\n',
        [f"{AT}/resource: error: must be this server's canonical URL"],
    ),
    "scope with a space": (
        GOOD.replace('"mcp:tools"', '"mcp tools"'),
        [f"{AT}/scopes/0: error: scope 'mcp tools' is not a scope token"],
    ),
    "symmetric algorithm": (
        GOOD.replace('"RS256"', '"HS256"'),
        [f"{AT}/algorithms/0: error: 'HS256' is not accepted; use asymmetric ones"],
    ),
    "leeway out of range": (
        GOOD.replace("leeway-seconds = 10", "leeway-seconds = 3600"),
        [f"{AT}/leeway-seconds: error: must be a number of seconds from 0 to 600"],
    ),
    "list-tools not a choice": (
        GOOD.replace('list-tools = "callable"', 'list-tools = "scoped"'),
        [f"{AT}/list-tools: error: list-tools 'scoped' is not a choice: 'all' lists every tool"],
    ),
    "key age ceiling out of range": (
        GOOD + "jwks-max-age-seconds = 1\n",
        [f"{AT}/jwks-max-age-seconds: error: must be a number of seconds from 5 to 86400"],
    ),
    "plain JWT issuer not an issuer": (
        GOOD + 'plain-jwt-issuers = ["https://other.example"]\n',
        [f"{AT}/plain-jwt-issuers/0: error: 'https://other.example' is not one of the issuers"],
    ),
    "list-tools not a string": (
        GOOD.replace('list-tools = "callable"', "list-tools = true"),
        [f'{AT}/list-tools: error: must be "all" (every tool) or "callable"'],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_authorization_settings_are_errors_at_their_pointer(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra, expected = BAD[case]
    root = write_project(tmp_path / "project", {"t.json": tool()}, extra=extra)
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert code == 2
    assert len(errors) == len(expected), errors
    for line, start in zip(errors, expected, strict=True):
        assert line.startswith(start), line


def test_good_settings_become_the_packages_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(tmp_path / "project", {"t.json": tool()}, extra=GOOD)
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    assert code == 0, err
    shown = subprocess.run(
        [sys.executable, "-c", "from server._authorization import DEFAULTS; print(DEFAULTS)"],
        cwd=root, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert shown.stdout.strip() == repr(
        {
            "MCP_AUTH_ALGORITHMS": "RS256",
            "MCP_AUTH_ISSUERS": "https://keycloak.example.com/realms/mcp",
            "MCP_AUTH_LEEWAY_SECONDS": "10.0",
            "MCP_AUTH_LIST_TOOLS": "callable",
            "MCP_AUTH_RESOURCE": "https://mcp.example.com/mcp",
            "MCP_AUTH_SCOPES": "mcp:tools",
        }
    )


def test_key_age_and_plain_jwt_issuers_become_defaults_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = GOOD + (
        'jwks-max-age-seconds = 120\nplain-jwt-issuers = ["https://keycloak.example.com/realms/mcp"]\n'
    )
    root = write_project(tmp_path / "project", {"t.json": tool()}, extra=extra)
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    assert code == 0, err
    shown = subprocess.run(
        [sys.executable, "-c", "from server._authorization import DEFAULTS; print(DEFAULTS)"],
        cwd=root, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    defaults = ast.literal_eval(shown.stdout)  # the dict the package printed
    assert defaults["MCP_AUTH_JWKS_MAX_AGE_SECONDS"] == "120.0"
    assert defaults["MCP_AUTH_PLAIN_JWT_ISSUERS"] == "https://keycloak.example.com/realms/mcp"
