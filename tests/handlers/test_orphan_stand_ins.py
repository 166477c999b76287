"""An orphaned handler whose tool took its types along stays importable and type-clean:
each such type is defined as ``Any`` (a stand-in) while something names it, and the
stand-in goes when the tool comes back or the orphan is deleted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, MergeConflict, merge, render_new
from mcp_schemagen.handlers.stand_ins import STAND_IN_COMMENT

CONVERT = HandlerSpec(
    "convert_time", "convert_time", "*, zone: ConvertTimeZone", "ConvertTimeOutput", None
)
SEARCH = HandlerSpec("search", "search", "*, q: str", "str", None)
TYPES_PY = "from typing import Literal, TypedDict\n\nConvertTimeZone = Literal['utc', 'cet']\n\n\nclass ConvertTimeOutput(TypedDict):\n    time: str\n"


def spec(*handlers: HandlerSpec) -> HandlerModuleSpec:
    names = sorted(
        {
            n
            for h in handlers
            for n in ("ConvertTimeZone", "ConvertTimeOutput")
            if n in h.parameters + h.returns
        }
    )
    imports = f"from .types import {', '.join(names)}\n" if names else ""
    return HandlerModuleSpec('"""Handlers."""', imports, list(handlers))  # fmt: skip


def with_bodies(text: str) -> str:
    return text.replace(
        'raise NotImplementedError("convert_time")',
        "return ConvertTimeOutput(time=str(zone))  # names the type in the body too",
    ).replace('raise NotImplementedError("search")', "return q")


def type_check(tmp_path: Path, handlers: str) -> None:
    package = tmp_path / "pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "types.py").write_text(TYPES_PY)
    (package / "handlers.py").write_text(handlers)
    imported = subprocess.run(
        [sys.executable, "-c", "import pkg.handlers"], cwd=tmp_path, capture_output=True, text=True
    )
    assert imported.returncode == 0, imported.stderr
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "pkg"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + handlers


def test_an_orphan_naming_its_removed_types_type_checks_and_they_go_with_it(
    tmp_path: Path,
) -> None:
    first = with_bodies(render_new(spec(CONVERT, SEARCH)))
    type_check(tmp_path, first)
    removed = merge(first, spec(SEARCH))
    assert f"ConvertTimeOutput = Any  {STAND_IN_COMMENT}" in removed.text
    assert f"ConvertTimeZone = Any  {STAND_IN_COMMENT}" in removed.text
    assert any("ConvertTimeOutput, ConvertTimeZone" in w for w in removed.warnings)
    type_check(tmp_path, removed.text)
    assert merge(removed.text, spec(SEARCH)).text == removed.text  # stable

    # The tool comes back: its import returns, the stand-ins go.
    back = merge(removed.text, spec(CONVERT, SEARCH)).text
    assert STAND_IN_COMMENT not in back
    # The body builds ConvertTimeOutput (imported for real); the zone is only annotated.
    assert "from .types import ConvertTimeOutput\n" in back
    assert "if TYPE_CHECKING:\n    from .types import ConvertTimeZone\n" in back
    type_check(tmp_path, back)

    # The user deletes the orphan: nothing names the types, the stand-ins go too.
    orphan_at = removed.text.index('# mcp-codegen tool: "convert_time"')
    deleted = removed.text[:orphan_at].rstrip("\n") + "\n"
    cleaned = merge(deleted, spec(SEARCH)).text
    assert STAND_IN_COMMENT not in cleaned
    type_check(tmp_path, cleaned)


def test_a_module_using_the_name_any_otherwise_stops_with_what_to_do() -> None:
    first = with_bodies(render_new(spec(CONVERT, SEARCH))) + "\n\nAny = 3\n"
    with pytest.raises(MergeConflict, match="binds the name `Any` to something else"):
        merge(first, spec(SEARCH))
