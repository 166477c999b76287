"""Two build steps that were once quadratic do a fixed amount of work per module, counted
here, not timed (timings belong in bench/): extracting the field annotations of a typed
module scans the module a fixed number of times whatever its number of properties (10 or
80), and the diff `check` prints searches only around the changed lines (a module of 200
or 5,000 tools, the same work). This is all the README may cite this file for: it does not
time whole builds over tool counts or schema sizes (bench/bench_build.py does)."""

from __future__ import annotations

import ast
import difflib
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.compile.typegen import typed_module
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.write import disk as write


def _object_schema(count: int) -> dict[str, Any]:
    properties = {f"p_{n}": {"type": "string", "maxLength": 8} for n in range(count)}
    # A multi-line annotation and a non-ASCII name: segments are cut by byte columns.
    properties["choice"] = {"enum": [f"v{n}" for n in range(40)]}
    properties["größe"] = {"type": "integer"}
    return {"type": "object", "properties": properties, "required": ["p_0"]}


def test_field_annotations_do_not_rescan_the_module_per_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ast.get_source_segment splits the whole module into lines on every call: once per
    # property made building 5,000 properties quadratic (issue 10, point 9).
    splits = 0
    original = ast._splitlines_no_ff  # type: ignore[attr-defined]

    def counting(source: str) -> list[str]:
        nonlocal splits
        splits += 1
        result: list[str] = original(source)
        return result

    monkeypatch.setattr(ast, "_splitlines_no_ff", counting)
    counts = []
    for size in (10, 80):
        splits = 0
        module = typed_module(_object_schema(size), "BigInput")
        assert len(module.fields) == size + 2
        counts.append(splits)
    assert counts[0] == counts[1], f"module rescans grow with properties: {counts}"


def test_field_annotations_are_the_source_text() -> None:
    """The same text the stdlib's (quadratic) get_source_segment gives, non-ASCII included."""
    schema = _object_schema(3)
    schema["properties"]["label"] = {"enum": ["grün", "blau\u2028rot"]}
    module = typed_module(schema, "BigInput")
    tree = ast.parse(module.source)
    # A property name that is no plain identifier makes the functional TypedDict form.
    [table] = [
        n.value.args[1]
        for n in tree.body
        if isinstance(n, ast.Assign)
        and isinstance(n.value, ast.Call)
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id == "BigInput"
        and isinstance(n.value.args[1], ast.Dict)
    ]
    assert isinstance(table, ast.Dict)
    expected = {}
    for key, annotation in zip(table.keys, table.values, strict=True):
        assert isinstance(key, ast.Constant)
        while isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
            if annotation.value.id not in ("NotRequired", "Required"):
                break
            annotation = annotation.slice
        segment = ast.get_source_segment(module.source, annotation)
        assert segment is not None
        expected[key.value] = " ".join(segment.split())
    assert {key: field.text for key, field in module.fields.items()} == expected


def test_a_diff_scans_the_changed_lines_not_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # difflib's matcher searches every gap again, quadratic over a module: `check` after
    # one edit of a 500-tool project spent 7.7 s diffing two 2 MB modules to print 41 lines.
    scanned: list[int] = []
    find = difflib.SequenceMatcher.find_longest_match

    def counting(
        self: difflib.SequenceMatcher[str],
        alo: int = 0,
        ahi: Any = None,
        blo: int = 0,
        bhi: Any = None,
    ) -> difflib.Match:
        scanned[-1] += (ahi - alo) + (bhi - blo)
        return find(self, alo, ahi, blo, bhi)

    for size in (200, 5000):
        # A module like _dispatch.py: a header line that changes with every input, rows
        # whose lines repeat (" },") and rows that name their tool once.
        before = ["# input: tools sha256=1\n"]
        for n in range(size):
            before += [f' "tool_{n}": {{\n', '  "x": 1\n', " },\n"]
        after = list(before)
        after[0] = "# input: tools sha256=2\n"
        after[3 * (size // 2) + 2] = '  "x": 2\n'
        after.insert(3 * (size // 3) + 1, f' "new_{size}": {{\n')
        path = tmp_path / "module.py"
        path.write_text("".join(before), encoding="utf-8")
        monkeypatch.setattr(difflib.SequenceMatcher, "find_longest_match", find)
        expected = "".join(
            difflib.unified_diff(before, after, fromfile="a/module.py", tofile="b/module.py")
        )
        scanned.append(0)
        monkeypatch.setattr(difflib.SequenceMatcher, "find_longest_match", counting)
        produced = write.unified_diff([OutputFile(path, "".join(after))], tmp_path)
        assert produced == expected
    # 25 times the module, the same work: only the lines around each change are searched.
    assert scanned[0] == scanned[1] < 50, scanned


def _described_schema(count: int) -> dict[str, Any]:
    # Described properties whose values are shielded too (a quote), as large API documents'.
    properties = {
        f"p_{n}": {"enum": [f"it's {n}"], "description": f"Field {n}: 'quoted' text."}
        for n in range(count)
    }
    return {"type": "object", "properties": properties}


def test_restoring_schema_text_scans_the_module_a_fixed_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Putting descriptions and names back once took one regular expression and several
    # passes over the module per token: quadratic in a module of Stripe's (thousands of
    # tokens), ~30 s of a cold build of its import. Counted: the patterns compiled.
    from mcp_schemagen.compile import type_shield, typegen

    compiled = 0
    original = typegen.re.compile

    def counting(pattern: Any, flags: int = 0) -> Any:
        nonlocal compiled
        compiled += 1
        return original(pattern, flags)

    counts = []
    for size in (10, 80):
        shield = type_shield.Shield(_described_schema(size))
        generated, _ = typegen.generated_types(shield.schema, "BigInput", None)
        monkeypatch.setattr(typegen.re, "compile", counting)
        compiled = 0
        restored = shield.restore(generated)
        monkeypatch.setattr(typegen.re, "compile", original)
        assert "mcpcgtok" not in restored.lower()
        assert f'"it\'s {size - 1}"' in restored and f"Field {size - 1}: 'quoted' text." in restored
        counts.append(compiled)
    assert counts[0] == counts[1], f"restoring rescans grow with tokens: {counts}"
