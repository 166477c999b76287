"""Behaviour of the handler-module merge beyond the golden cases: edge cases of layout,
line endings, generated-import policy, and the spec's own validation."""

from __future__ import annotations

import pytest

from mcp_schemagen.handlers import (
    ORPHAN_BANNER,
    HandlerModuleSpec,
    HandlerSpec,
    MergeConflict,
    marker_comment,
    merge,
    render_new,
)
from mcp_schemagen.render.formatting import format_unsorted


def handler(function: str, parameters: str = "", returns: str = "str") -> HandlerSpec:
    return HandlerSpec(function, function, parameters, returns, f'"""The {function} tool."""')


def spec(imports: str, *handlers: HandlerSpec) -> HandlerModuleSpec:
    return HandlerModuleSpec('"""Handlers."""', imports, handlers)


WEATHER = handler("get_weather", "*, city: str, units: Units = 'c'", "Report")
LONG = handler(
    "get_weather",
    "*, city: str, units: Units = 'c', include_humidity: bool = False, wind: bool = False",
    "Report",
)
SPECS = [
    spec(""),
    spec("", handler("ping")),
    spec("from .types import Report, Units", WEATHER, handler("ping")),
    spec(
        "from .types import Report, Units\nfrom ._runtime.content import ContentBlock",
        LONG,
        handler("images", "*, n: int", "list[ContentBlock]"),
    ),
]


@pytest.mark.parametrize("module_spec", SPECS)
def test_a_new_module_is_black_clean_and_merges_to_itself(module_spec: HandlerModuleSpec) -> None:
    text = render_new(module_spec)
    assert format_unsorted(text) == text
    result = merge(text, module_spec)
    assert result.text == text
    assert result.warnings == []


def test_stubs_are_marked_with_their_tool() -> None:
    text = render_new(spec("", HandlerSpec("get_weather", "get-weather", "", "str", None)))
    assert f"{marker_comment('get-weather')}\ndef get_weather() -> str:\n" in text
    assert marker_comment("get-weather") == '# mcp-codegen tool: "get-weather"'


def test_crlf_line_endings_are_kept() -> None:
    before = spec("from .types import Report, Units", WEATHER)
    text = render_new(before).replace("\n", "\r\n")
    after = spec("from .types import Report, Units", LONG, handler("ping"))
    merged = merge(text, after).text
    assert "\n" not in merged.replace("\r\n", "")
    assert merged.replace("\r\n", "\n") == merge(render_new(before), after).text


def test_tab_indented_module_gets_tab_indented_stubs() -> None:
    before = spec("", handler("ping"))
    text = render_new(before).replace("    ", "\t")
    merged = merge(text, spec("", handler("ping"), handler("pong"))).text
    assert '\traise NotImplementedError("pong")\n' in merged
    assert "    " not in merged


def test_a_stale_banner_with_no_orphans_is_removed() -> None:
    module_spec = spec("", handler("ping"))
    text = render_new(module_spec) + f"\n\n{ORPHAN_BANNER}\n"
    assert merge(text, module_spec).text == render_new(module_spec)


def test_banner_is_short_enough_for_any_line_length_linter() -> None:
    assert len(ORPHAN_BANNER) <= 88


def test_restoring_the_only_orphan_removes_the_banner() -> None:
    both = spec("", handler("ping"), handler("pong"))
    text = render_new(both).replace('raise NotImplementedError("pong")', 'return "pong!"')
    orphaned = merge(text, spec("", handler("ping"))).text
    assert ORPHAN_BANNER in orphaned
    restored = merge(orphaned, both)
    assert ORPHAN_BANNER not in restored.text
    assert restored.text == text
    assert restored.warnings == [
        "handler 'pong': tool 'pong' is back in the schemas; its handler was moved out of "
        "the orphaned section"
    ]


def test_a_handler_on_the_first_line_keeps_its_marker() -> None:
    text = f'{marker_comment("ping")}\ndef ping() -> str:\n    return "pong"\n'
    merged = merge(text, spec("", handler("ping", "*, loud: bool = False"))).text
    assert merged == (
        f'{marker_comment("ping")}\ndef ping(*, loud: bool = False) -> str:\n    return "pong"\n'
    )


def test_a_marker_between_decorators_counts() -> None:
    text = (
        "import functools\n\n\n"
        f'@functools.cache\n{marker_comment("ping")}\ndef ping() -> str:\n    return "pong"\n'
    )
    merged = merge(text, spec("", handler("ping", "*, n: int"))).text
    assert "@functools.cache\n" in merged
    assert "def ping(*, n: int) -> str:\n" in merged


def test_comments_detached_from_a_removed_handler_stay_in_place() -> None:
    text = render_new(spec("", handler("ping"), handler("pong"), handler("tail")))
    text = text.replace(
        f"\n\n\n{marker_comment('pong')}",
        f"\n\n\n# --- section: games ---\n\n{marker_comment('pong')}",
    )
    merged = merge(text, spec("", handler("ping"), handler("tail"))).text
    section = merged.index("# --- section: games ---")
    assert section < merged.index("def tail(") < merged.index(ORPHAN_BANNER)
    assert merged.index(ORPHAN_BANNER) < merged.index("def pong(")
    assert format_unsorted(merged) == merged


def test_a_generated_import_comment_blocks_only_a_change() -> None:
    module_spec = spec("from .types import Report, Units", WEATHER)
    text = render_new(module_spec).replace(
        "from .types import Report, Units\n", "from .types import Report, Units  # noqa: F401\n"
    )
    assert merge(text, module_spec).text == text
    with pytest.raises(MergeConflict) as raised:
        merge(text, spec("", handler("get_weather")))
    assert raised.value.function is None
    assert "generated import at line 8" in raised.value.reason


def test_a_generated_name_that_user_code_reads_stays_imported() -> None:
    before = spec("from .types import Report, Units", WEATHER)
    text = render_new(before) + "\n\nDEFAULT_UNITS: Units = 'c'\n"
    after = spec("from .types import Report", handler("get_weather", "*, city: str", "Report"))
    merged = merge(text, after)
    assert "from .types import Report, Units\n" in merged.text
    assert merged.warnings == []


def test_user_imports_from_the_generated_modules_merge_into_one() -> None:
    before = spec("from .types import Report, Units", WEATHER)
    text = render_new(before).replace(
        "from .types import Report, Units\n",
        "from .types import Report, Units\nfrom .types import Extra as Mine\n",
    )
    text += "\n\ndef helper() -> Mine:\n    raise NotImplementedError\n"
    after = spec("from .types import Report", handler("get_weather", "*, city: str", "Report"))
    merged = merge(text, after).text
    assert "from .types import Report, Extra as Mine\n" in merged
    assert "Units" not in merged.split("def get_weather")[0]


def test_a_star_import_from_the_generated_types_is_kept() -> None:
    text = render_new(spec("from .types import Report, Units", WEATHER)).replace(
        "from .types import Report, Units\n", "from .types import *\n"
    )
    merged = merge(text, spec("from .types import Report, Units", WEATHER)).text
    assert "from .types import *\n" in merged
    assert "from .types import Report, Units\n" in merged


def test_an_annotation_of_an_orphan_without_future_import_is_a_conflict() -> None:
    before = spec("from .types import Report, Units", WEATHER, handler("ping"))
    text = render_new(before).replace("from __future__ import annotations\n\n", "")
    with pytest.raises(MergeConflict) as raised:
        merge(text, spec("", handler("ping")))
    assert raised.value.function == "get_weather"
    assert "reads Report, Units when the module is imported" in raised.value.reason


def test_a_removed_parameter_still_read_by_the_body_is_a_conflict() -> None:
    before = spec("", handler("greet", "*, name: str"))
    text = render_new(before).replace('raise NotImplementedError("greet")', "return name")
    with pytest.raises(MergeConflict) as raised:
        merge(text, spec("", handler("greet", "*, who: str")))
    assert raised.value.function == "greet"
    assert "parameter 'name' (line" in raised.value.reason
    assert "the body still uses it (a NameError when the handler is called)" in raised.value.reason


def test_a_removed_parameter_the_module_also_binds_is_removed() -> None:
    """The body's `name` then reads the module's: no NameError, nothing to stop for."""
    before = spec("", handler("greet", "*, name: str"))
    text = render_new(before).replace('raise NotImplementedError("greet")', "return name")
    text += '\n\nname = "module"\n'
    merged = merge(text, spec("", handler("greet", "*, who: str")))
    assert "def greet(*, who: str)" in merged.text


def test_a_duplicate_handler_is_a_conflict() -> None:
    text = render_new(spec("", handler("ping")))
    text += f'\n\n{marker_comment("ping")}\ndef ping() -> str:\n    return "again"\n'
    with pytest.raises(MergeConflict, match="bound 2 times at module level"):
        merge(text, spec("", handler("ping")))


def test_a_global_statement_rebinding_a_handler_is_a_conflict() -> None:
    text = render_new(spec("", handler("ping")))
    text += "\n\ndef patch() -> None:\n    global ping\n    ping = None\n"
    with pytest.raises(MergeConflict, match="bound 2 times"):
        merge(text, spec("", handler("ping", "*, n: int")))


def test_an_empty_module_gets_imports_and_stubs() -> None:
    merged = merge("", spec("from .types import Report, Units", WEATHER)).text
    assert merged.startswith("from .types import Report, Units\n\n\n# mcp-codegen tool:")


def test_a_malformed_marker_is_a_conflict() -> None:
    text = "# mcp-codegen tool: get_weather\ndef get_weather() -> str:\n    return ''\n"
    with pytest.raises(MergeConflict, match="malformed marker"):
        merge(text, spec("", handler("get_weather")))


@pytest.mark.parametrize(
    "bad",
    [
        spec("", handler("ping"), handler("ping")),
        spec("", handler("ping", "*, x: = 1")),
        spec("import os", handler("ping")),
    ],
)
def test_a_malformed_spec_is_a_programming_error(bad: HandlerModuleSpec) -> None:
    with pytest.raises(ValueError, match="handler spec"):
        merge("", bad)
