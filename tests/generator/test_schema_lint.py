"""Lint of tool schemas (unknown keywords, unsatisfiable `required`) and the type
generator's own warnings, which reach the user only in our words, located file#/pointer."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import datamodel_code_generator
import pytest

from mcp_schemagen.check.schema_lint import lint_schema
from mcp_schemagen.compile import typegen
from mcp_schemagen.compile.compiler import generator_diagnostics
from tests.support.projects import run_cli, tool, write_project


def _lint(schema: dict[str, Any]) -> list[str]:
    return sorted(str(d) for d in lint_schema(schema, "tools/t.json", "/inputSchema"))


def test_misspelt_keywords_warn_with_a_did_you_mean() -> None:
    found = _lint(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLenght": 1},
                "tags": {"type": "array", "items": {"type": "string", "maxLenght": 9}},
            },
            "requird": ["name"],
        }
    )
    assert found == [
        "tools/t.json#/inputSchema/properties/name/minLenght: warning: unknown keyword "
        "'minLenght': JSON Schema ignores it, so it neither validates nor types anything; "
        "did you mean 'minLength'?",
        "tools/t.json#/inputSchema/properties/tags/items/maxLenght: warning: unknown keyword "
        "'maxLenght': JSON Schema ignores it, so it neither validates nor types anything; "
        "did you mean 'maxLength'?",
        "tools/t.json#/inputSchema/requird: warning: unknown keyword 'requird': JSON Schema "
        "ignores it, so it neither validates nor types anything; did you mean 'required'?",
    ]


def test_names_and_data_that_look_like_keywords_are_not_reported() -> None:
    assert (
        _lint(
            {
                "type": "object",
                "$defs": {"requird": {"type": "string"}},
                "properties": {
                    "requird": {"$ref": "#/$defs/requird"},
                    "minLenght": {"type": "object", "default": {"requird": 1}},
                    "choice": {"enum": [{"typo": 1}], "x-ui-order": 2},
                },
                "x-vendor": {"anything": True},
            }
        )
        == []
    )


def test_keywords_of_other_languages_say_what_json_schema_means() -> None:
    (found,) = _lint({"type": "object", "properties": {"a": {"type": "string", "nullable": True}}})
    assert found.startswith("tools/t.json#/inputSchema/properties/a/nullable: warning:")
    assert 'to allow null, add "null" to "type"' in found


def test_required_names_that_can_never_be_present_are_errors() -> None:
    found = _lint(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "gone": False,
                "inner": {
                    "type": "object",
                    "patternProperties": {"^x-": {"type": "string"}},
                    "additionalProperties": False,
                    "required": ["x-ok", "nope"],
                },
            },
            "required": ["a", "zz", "gone"],
            "additionalProperties": False,
        }
    )
    assert found == [
        "tools/t.json#/inputSchema/properties/inner/required/1: error: required property "
        "'nope' can never be present: it is not in properties and additionalProperties is "
        "false, so every call is rejected; add 'nope' to properties or remove it from required",
        "tools/t.json#/inputSchema/required/1: error: required property 'zz' can never be "
        "present: it is not in properties and additionalProperties is false, so every call is "
        "rejected; add 'zz' to properties or remove it from required",
        "tools/t.json#/inputSchema/required/2: error: required property 'gone' can never be "
        "present: its schema in properties is false, so every call is rejected; add 'gone' to "
        "properties or remove it from required",
    ]
    # Without additionalProperties: false a required name outside properties is fine.
    assert _lint({"type": "object", "required": ["anything"]}) == []


def test_the_build_reports_lint_and_stops_on_an_unsatisfiable_required(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string", "minLenght": 1}},
        "required": ["text", "txet"],
        "additionalProperties": False,
    }
    root = write_project(tmp_path / "p", {"echo.json": tool(inputSchema=schema)})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert "tools/echo.json#/inputSchema/properties/text/minLenght: warning:" in err
    assert "tools/echo.json#/inputSchema/required/1: error: required property 'txet'" in err


def test_generator_warnings_never_leak_and_formats_never_change_types(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "payload": {"type": "string", "format": "json"},
            "blob": {"type": "string", "format": "binary"},
        },
        "required": ["payload", "blob"],
    }
    root = write_project(tmp_path / "p", {"echo.json": tool(inputSchema=schema)})
    result = subprocess.run(
        [sys.executable, "-W", "always", "-m", "mcp_schemagen.cli", "build", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "datamodel" not in result.stderr
    assert "Warning" not in result.stderr
    assert "not understood" not in result.stderr
    handlers = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert "def echo(*, payload: str, blob: str)" in handlers  # JSON sends text, not bytes


def test_a_generator_warning_becomes_our_diagnostic_at_its_pointer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = datamodel_code_generator.generate

    def warning_generate(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            "prefixItems is not supported here. Schema path: #/properties/p", stacklevel=1
        )
        return real(*args, **kwargs)

    # typegen imports it on a cache miss, from the module: patched there, it is seen.
    monkeypatch.setattr(datamodel_code_generator, "generate", warning_generate)
    schema = {"type": "object", "properties": {"p": {"type": "array"}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may escape as a Python warning
        types = typegen.typed_module(schema, "LintProbeInput", None)
    (found,) = generator_diagnostics(types, "tools/t.json", "/inputSchema")
    assert str(found) == (
        "tools/t.json#/inputSchema/properties/p: warning: the generated Python types cannot "
        "express this schema exactly, so they may accept or reject what the server's "
        "validation does not (prefixItems is not supported here.)"
    )
