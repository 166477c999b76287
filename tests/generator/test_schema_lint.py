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


def test_misspelt_keywords_that_change_meaning_are_errors_with_a_did_you_mean() -> None:
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

    def near(pointer: str, key: str, meant: str) -> str:
        return (
            f"tools/t.json#/inputSchema{pointer}/{key}: error: unknown keyword {key!r}: did you "
            f"mean {meant!r}? JSON Schema ignores unknown keywords, so this one would silently "
            f'not apply; correct it, or, if {key!r} is meant, name it "x-{key}" or list it in '
            "accept-keywords of [tool.mcp-codegen]"
        )

    assert found == [
        near("/properties/name", "minLenght", "minLength"),
        near("/properties/tags/items", "maxLenght", "maxLength"),
        near("", "requird", "required"),
    ]


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("additionalPropertes", "additionalProperties"),
        ("Required", "required"),
        ("maxlength", "maxLength"),
        ("propertis", "properties"),
        ("defualt", "default"),
        ("minimun", "minimum"),
        ("pattrn", "pattern"),
        ("oneof", "oneOf"),
        ("definition", "definitions"),
        ("enums", "enum"),
    ],
)
def test_near_misses_of_meaningful_keywords_are_errors(key: str, meant: str) -> None:
    (found,) = _lint({"type": "object", key: 1})
    assert f": error: unknown keyword {key!r}: did you mean {meant!r}?" in found


@pytest.mark.parametrize("key", ["example", "descripton", "titel", "id", "typ", "widget"])
def test_other_unknown_keywords_stay_warnings(key: str) -> None:
    (found,) = _lint({"type": "object", key: 1})
    assert f"/inputSchema/{key}: warning: unknown keyword {key!r}" in found


def test_extension_and_accepted_keywords_are_free() -> None:
    schema = {"type": "object", "x-requird": 1, "requird": ["a"], "widget": 2}
    found = lint_schema(schema, "t.json", "", frozenset({"requird", "widget"}))
    assert found == []


def test_a_near_miss_stops_build_and_check_even_quiet(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "requird": ["text"],
    }
    root = write_project(tmp_path / "p", {"echo.json": tool(inputSchema=schema)})
    for command in ("build", "check"):
        code, out, err = run_cli(command, "-q", str(root))
        assert (code, out) == (2, ""), err
        assert "tools/echo.json#/inputSchema/requird: error: unknown keyword 'requird': did you " \
            "mean 'required'?" in err  # fmt: skip
    assert not (root / "server").exists()
    # Accepted on purpose: it builds, and silently.
    write_project(
        root, {"echo.json": tool(inputSchema=schema)}, extra='accept-keywords = ["requird"]\n'
    )
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert "requird" not in err


def test_accept_keywords_must_be_a_list_of_names(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"echo.json": tool()}, extra="accept-keywords = 3\n")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert "pyproject.toml#/tool/mcp-codegen/accept-keywords: error: must be a list" in err


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
    assert "tools/echo.json#/inputSchema/properties/text/minLenght: error:" in err
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
