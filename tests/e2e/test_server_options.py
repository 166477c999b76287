"""Every ``Server`` option the documentation names (docs/reference/configuration.md) is a
configuration key: ``instructions``,
``ttl-ms`` and ``cache-scope`` in ``[tool.mcp-codegen]`` reach a built server's answers,
and a wrong value is an error at the key's pointer in pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.projects import run_cli, tool, write_project
from tests.support.stdio_conversation import Conversation, meta

INSTRUCTIONS = 'Call echo first.\nQuotes " and backslashes \\ stay as written.'


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("configured")
    escaped = INSTRUCTIONS.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    write_project(
        root,
        {"echo.json": tool()},
        revisions=("2025-11-25", "2026-07-28"),
        extra=f'instructions = "{escaped}"\nttl-ms = 60000\ncache-scope = "private"\n',
    )
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


def test_initialize_carries_the_configured_instructions(configured: Path, tmp_path: Path) -> None:
    client = Conversation(configured, "server", "2025-11-25", tmp_path / "stderr")
    try:
        result = client.result(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    finally:
        client.close()
    assert result["instructions"] == INSTRUCTIONS


def test_stateless_list_and_discover_carry_the_configured_caching_hints(
    configured: Path, tmp_path: Path
) -> None:
    client = Conversation(configured, "server", "2026-07-28", tmp_path / "stderr")
    try:
        listed = client.result("tools/list", {"_meta": meta()})
        discovered = client.result("server/discover", {"_meta": meta()})
    finally:
        client.close()
    assert (listed["ttlMs"], listed["cacheScope"]) == (60000, "private")
    assert (discovered["ttlMs"], discovered["cacheScope"]) == (60000, "private")
    assert discovered["instructions"] == INSTRUCTIONS


def test_without_the_keys_the_runtime_defaults_apply(tmp_path: Path) -> None:
    root = write_project(tmp_path / "plain", {"echo.json": tool()})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    dispatch = (root / "server" / "_dispatch.py").read_text(encoding="utf-8")
    assert "instructions=" not in dispatch and "ttl_ms=" not in dispatch
    assert "list_changed=" not in dispatch and "subscribe=" not in dispatch
    client = Conversation(root, "server", "2026-07-28", tmp_path / "stderr")
    try:
        listed = client.result("tools/list", {"_meta": meta()})
        discovered = client.result("server/discover", {"_meta": meta()})
    finally:
        client.close()
    assert (listed["ttlMs"], listed["cacheScope"]) == (300_000, "public")
    assert "instructions" not in discovered


@pytest.mark.parametrize(
    ("setting", "key", "says"),
    [
        ("instructions = 42", "instructions", "must be a non-empty string"),
        ('instructions = "  "', "instructions", "must be a non-empty string"),
        ("ttl-ms = -1", "ttl-ms", "must be an integer from 0 to"),
        ("ttl-ms = 1.5", "ttl-ms", "must be an integer from 0 to"),
        ("ttl-ms = true", "ttl-ms", "must be an integer from 0 to"),
        ("ttl-ms = 9007199254740992", "ttl-ms", "must be an integer from 0 to"),
        ('cache-scope = "shared"', "cache-scope", "must be one of 'public', 'private'"),
        ('cache-scope = "Public"', "cache-scope", "must be one of 'public', 'private'"),
        ('list-changed = "tools"', "list-changed", "must be a list of the kinds"),
        ('list-changed = ["tool"]', "list-changed", "must be a list of the kinds"),
        ("resource-subscriptions = 1", "resource-subscriptions", "must be true or false"),
    ],
)
def test_a_wrong_value_is_an_error_at_its_key(
    tmp_path: Path, setting: str, key: str, says: str
) -> None:
    root = write_project(tmp_path, {"echo.json": tool()}, extra=setting + "\n")
    code, _, err = run_cli("build", str(root))
    assert code != 0
    assert f"{root / 'pyproject.toml'}#/tool/mcp-codegen/{key}: error: {says}" in err
    assert not (root / "server").exists()


def test_zero_ttl_is_allowed_and_sent(tmp_path: Path) -> None:
    """0 means "stale at once" in the schema (minimum 0), not "unset"."""
    root = write_project(tmp_path / "zero", {"echo.json": tool()}, extra="ttl-ms = 0\n")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    client = Conversation(root, "server", "2026-07-28", tmp_path / "stderr")
    try:
        listed = client.result("tools/list", {"_meta": meta()})
    finally:
        client.close()
    assert listed["ttlMs"] == 0
