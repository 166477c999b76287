"""The reference pages say what the code does: every environment variable the generator
or a generated server reads is named; the generated commands page has every command and
option of the argument parsers; the configuration table has every key the loader accepts,
and its adapter refuses to build when they disagree; the content constructors' table of
the tools guide gives their signatures."""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import re
from dataclasses import replace
from types import ModuleType

import pytest

from mcp_schemagen.cli import _parser
from mcp_schemagen.load import config_keys
from mcp_schemagen.runtime import content
from tests.support.docs import DOCS, page
from tests.support.paths import REPO


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference_hook", DOCS / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_environment_variable_read_is_named() -> None:
    read = set()
    for path in (REPO / "mcp_schemagen").rglob("*.py"):
        read |= set(re.findall(r"\"(MCP_[A-Z_]+)\"", path.read_text(encoding="utf-8")))
    assert read, "the scan finds the variables"
    missing = sorted(v for v in read if f"`{v}`" not in page("reference/environment.md"))
    assert not missing, f"not on docs/reference/environment.md: {missing}"


def test_every_key_of_our_own_the_build_reads_is_named() -> None:
    read = set()
    for path in (REPO / "mcp_schemagen").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        read |= set(
            re.findall(r"\"(x-mcp-codegen-[a-z-]+|x-mcp-header|io\.mcp-codegen/[a-z-]+)\"", source)
        )
    assert {"x-mcp-codegen-file", "io.mcp-codegen/scopes"} <= read
    missing = sorted(k for k in read if k not in page("reference/schema-keys.md"))
    assert not missing, f"not on docs/reference/schema-keys.md: {missing}"


def test_the_commands_page_has_every_command_and_option() -> None:
    text = _hook().commands_page()
    parser = _parser()
    stack = [parser]
    while stack:
        current = stack.pop()
        assert f"`{current.prog}`" in text, current.prog
        for action in current._actions:
            if isinstance(action, argparse._HelpAction):
                continue  # every command has --help; the page says so once
            for option in action.option_strings:
                assert f"`{option}`" in text, (current.prog, option)
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                stack += list(action.choices.values())
    for option in ("`--http`", "`--store`", "`--auth-issuer`", "`--max-concurrent-requests`"):
        assert option in text, option


def test_the_commands_page_has_the_server_and_task_worker_options() -> None:
    from mcp_schemagen.runtime.main import parser as server_parser
    from mcp_schemagen.runtime.tasks.engine_worker import parser as worker_parser

    text = _hook().commands_page()
    for parser in (server_parser("PACKAGE"), worker_parser("PACKAGE")):
        assert f"`{parser.prog}`" in text, parser.prog
        for action in parser._actions:
            for option in action.option_strings:
                assert option in ("-h", "--help") or f"`{option}`" in text, (parser.prog, option)
    assert "`--task-engine`" in text and "`--redis`" in text


def test_the_configuration_table_has_every_key_the_loader_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The page is made from the rows load_config reads by: a key added there is on it."""
    hook = _hook()
    table = hook.configuration_keys_markdown()
    for key in config_keys.CONFIG_KEYS:
        assert f"| `{key.name}` |" in table, key.name
    extra = replace(config_keys.CONFIG_KEYS[0], name="new-key", meaning="a new key")
    monkeypatch.setattr(config_keys, "CONFIG_KEYS", (*config_keys.CONFIG_KEYS, extra))
    assert "| `new-key` |" in hook.configuration_keys_markdown()


def test_the_handler_api_page_has_every_name_api_exports() -> None:
    hook = _hook()
    text = hook.handler_api_page()
    names = [name for _, name in hook.api_names()]
    assert "image" in names and "ToolError" in names
    for name in names:
        assert f"## `{name}`" in text, name
    assert "image(data: bytes, mime_type: str)" in text


def test_the_content_constructor_table_gives_their_signatures() -> None:
    rows = re.findall(r"^\| `(\w+)\((.*?)\)` \|", page("how-to/tools.md"), re.M)
    assert {name for name, _ in rows} == {
        "text",
        "image",
        "audio",
        "resource_link",
        "embedded_text",
        "embedded_blob",
    }
    for name, shown in rows:
        actual = str(inspect.signature(getattr(content, name)))[1:].rsplit(")", 1)[0]
        assert shown.replace("\\|", "|") == actual.replace("'", ""), (name, actual)
