"""[tool.mcp-codegen] read by its description (load/config_keys.py): every key a row,
the checks, defaults and the reference page all from those rows."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mcp_schemagen.diagnostics import BuildError
from mcp_schemagen.load.config import Config, load_config
from mcp_schemagen.load.config_keys import (
    CONFIG_KEYS,
    DEFAULT_PAGE_SIZE,
    config_reference_markdown,
)
from mcp_schemagen.runtime.core.listing import DEFAULT_CACHE_SCOPE, DEFAULT_TTL_MS
from mcp_schemagen.runtime.protocol import DEFAULT_NAMES
from tests.support.projects import tool, write_project


def _problems(tmp_path: Path, extra: str) -> list[str]:
    root = write_project(tmp_path, {"echo.json": tool()}, extra=extra)
    with pytest.raises(BuildError) as raised:
        load_config(root)
    return [
        str(d).replace(str(root / "pyproject.toml"), "pyproject.toml")
        for d in raised.value.diagnostics
    ]


def test_a_misspelt_key_gets_did_you_mean_at_its_own_pointer(tmp_path: Path) -> None:
    [problem] = _problems(tmp_path, "page-sise = 5\n")
    known = ", ".join(sorted(key.name for key in CONFIG_KEYS))
    assert problem == (
        "pyproject.toml#/tool/mcp-codegen/page-sise: error: unknown key; did you mean"
        f" 'page-size'? known keys: {known}"
    )


def test_a_key_near_none_gets_the_known_keys_only(tmp_path: Path) -> None:
    [problem] = _problems(tmp_path, "zzz = 1\n")
    assert problem.startswith(
        "pyproject.toml#/tool/mcp-codegen/zzz: error: unknown key; known keys: accept-keywords,"
    )


@pytest.mark.parametrize("key", ["tools", "prompts", "resources"])
def test_every_glob_key_is_checked_by_the_same_row_shape(tmp_path: Path, key: str) -> None:
    assert _problems(tmp_path, f'{key} = ["/etc/*.json"]\n') == [
        f"pyproject.toml#/tool/mcp-codegen/{key}: error: tool glob '/etc/*.json' is absolute;"
        ' globs are relative to pyproject.toml (like "tools/*.json"): copy or link the files'
        " into the project"
    ]
    assert _problems(tmp_path, f"{key} = 3\n")[0].startswith(
        f"pyproject.toml#/tool/mcp-codegen/{key}: error: must be a"
    )


def test_every_config_field_but_the_command_lines_comes_from_a_row() -> None:
    from_rows = {key.field for key in CONFIG_KEYS if key.field is not None}
    given = {"root", "allow_outside", "revisions_listed"}
    assert {f.name for f in dataclasses.fields(Config)} == from_rows | given
    assert len({key.name for key in CONFIG_KEYS}) == len(CONFIG_KEYS)


def test_absent_keys_take_the_defaults_the_rows_give(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.mcp-codegen]\npackage = "server"\n'
    )
    config = load_config(root)
    assert (config.page_size, config.ttl_ms, config.cache_scope) == (
        DEFAULT_PAGE_SIZE,
        DEFAULT_TTL_MS,
        DEFAULT_CACHE_SCOPE,
    )
    assert (config.server_name, config.server_version) == ("demo", "0.1.0")
    assert (config.revisions, config.revisions_listed) == (DEFAULT_NAMES, False)
    assert config.tool_globs == ("tools/*.json", "tools/*.yaml", "tools/*.yml")
    assert config.globs("prompts") == config.prompt_globs
    assert (config.protocol_models, config.list_changed, config.authorization) == (False, (), ())
    assert config.out_dir == root.resolve()


def test_a_missing_package_is_still_an_error_at_its_key(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.mcp-codegen]\npage-size = 5\n")
    with pytest.raises(BuildError) as raised:
        load_config(root)
    assert [(d.pointer, d.message) for d in raised.value.diagnostics] == [
        (
            "/tool/mcp-codegen/package",
            "must be a Python package name (letters, digits, _), got None",
        )
    ]


def test_the_reference_page_has_a_row_per_key_with_type_default_and_meaning() -> None:
    lines = config_reference_markdown().splitlines()
    assert lines[0] == "| key | type | default | meaning |"
    rows = {line.split(" | ")[0].strip("| `"): line for line in lines[2:]}
    assert list(rows) == [key.name for key in CONFIG_KEYS]
    assert rows["page-size"] == (
        "| `page-size` | integer | `100` | items per page of tools/list, prompts/list and"
        " resources/list |"
    )
    assert rows["package"].startswith("| `package` | string | (required) |")
