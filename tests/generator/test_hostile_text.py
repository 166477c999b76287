"""Schema text that tries to break out of its literal yields code that imports and means
exactly the schema, and nothing from a schema is ever executed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.projects import run_cli, write_project

NASTY = (
    'end""" and \'\'\' quote\\ back\\slash\nnew line\r\ncarriage \u202eevil\u202c bidi \u2028 sep "'
)
INJECTION = "'); __import__('pathlib').Path('PWNED').touch(); ('"

HOSTILE_TOOL: dict[str, Any] = {
    "name": "hostile.tool-1",
    "title": NASTY,
    "description": NASTY + INJECTION,
    "inputSchema": {
        "type": "object",
        "description": INJECTION,
        "properties": {
            "class": {"type": "string", "enum": [NASTY, INJECTION, "plain"], "default": NASTY},
            "from": {"type": "integer", "default": 3},
            'a"b': {"type": "string", "default": INJECTION, "pattern": "^[\\\\\"']*$"},
            "x\ny": {"type": "boolean"},
            "1st": {"type": "number", "default": 1.5},
            "import os": {"type": "array", "items": {"type": "string"}, "default": ['"""']},
            "\u202ert": {
                "type": "object",
                "description": NASTY,
                "properties": {NASTY: {"type": "string", "description": INJECTION}},
            },
        },
        "required": ["x\ny"],
    },
}

PROBE = r"""
import inspect, json, sys, typing
sys.path.insert(0, sys.argv[1])
from server import _dispatch, handlers, types
entry = _dispatch.TOOLS[0]
handler = handlers.hostile_tool_1
signature = inspect.signature(handler)
print(json.dumps({
    "published": entry.published["2026-07-28"],
    "arguments": dict(entry.arguments),
    "defaults": dict(entry.defaults),
    "signature_defaults": {
        name: (None if p.default is inspect.Parameter.empty else p.default)
        for name, p in signature.parameters.items()
    },
    "enum": list(typing.get_args(types.HostileTool1Class)),
    "doc": inspect.getdoc(handler),
    "input_keys": list(types.HostileTool1Input.__annotations__),
    "nested_keys": list(types.HostileTool1Rt.__annotations__),
}))
"""


def test_hostile_schema_text_builds_imports_and_means_the_schema(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"hostile.json": HOSTILE_TOOL})
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    generated = sorted((root / "server").rglob("*.py"))
    assert len(generated) > 3, generated  # the checks below must have modules to read
    for path in generated:
        text = path.read_text(encoding="utf-8")
        assert "\u202e" not in text and "\u2028" not in text, f"raw bidi control in {path}"
    # A fresh interpreter, run from an empty folder: an executed payload would leave PWNED.
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, str(root)],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)
    assert not (workdir / "PWNED").exists() and not (root / "PWNED").exists()

    assert seen["published"] == HOSTILE_TOOL
    properties = HOSTILE_TOOL["inputSchema"]["properties"]
    assert seen["arguments"] == {
        "class": "class_",
        "from": "from_",
        'a"b': "a_b",
        "x\ny": "x_y",
        "1st": "_1st",
        "import os": "import_os",
        "\u202ert": "_rt",
    }
    assert seen["defaults"] == {k: v["default"] for k, v in properties.items() if "default" in v}
    assert seen["signature_defaults"] == {
        "x_y": None,  # required: no default
        "import_os": None,  # a list default is passed by the dispatcher, fresh each call
        "class_": NASTY,
        "from_": 3,
        "a_b": INJECTION,
        "_1st": 1.5,
        "_rt": None,  # optional without default
    }
    assert seen["enum"] == [NASTY, INJECTION, "plain"]
    assert seen["input_keys"] == list(properties)
    assert seen["nested_keys"] == [NASTY]
    # Docstrings are indentation-cleaned by inspect; line breaks normalise to \n.
    # Property descriptions follow in an Args section (each line of NASTY on its own).
    description, args = seen["doc"].split("\n\nArgs:\n")
    assert description == (NASTY + INJECTION).strip().replace("\r\n", "\n")
    # (a mutable default's note may come first: the server passes a fresh copy of it)
    assert ("\n    _rt: " + NASTY.splitlines()[0]) in "\n" + args
    # Keys that are no identifiers make functional TypedDicts, which have no place for a
    # field docstring: the descriptions are left out there, never pasted half-escaped.
    generated = sorted((root / "server").rglob("*.py"))
    assert generated
    for path in generated:
        assert "mcpcgtok" not in path.read_text(encoding="utf-8"), path
