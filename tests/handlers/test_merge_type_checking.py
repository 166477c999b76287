"""The generated import in two parts: names the module reads at run time are imported for
real, names only annotations use under ``if TYPE_CHECKING:`` (so serving never loads
``.types``). Each build moves a name to the part its use asks for, migrates the single
import older builds wrote, and keeps the user's own imports and code around and inside."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, MergeConflict, merge, render_new
from mcp_schemagen.render.formatting import format_python

WEATHER = HandlerSpec(
    "get_weather", "get_weather", "*, city: str, units: Units = 'c'", "Report", '"""Weather."""'
)
SPEC = HandlerModuleSpec('"""Handlers."""', "from .types import Report, Units", [WEATHER])
STUB = 'raise NotImplementedError("get_weather")'
LAZY_BOTH = "if TYPE_CHECKING:\n    from .types import Report, Units\n"
TYPES_PY = (
    "import enum\nfrom typing import Literal, TypedDict\n\n"
    "Units = Literal['c', 'f']\n\n\nclass Report(TypedDict):\n    text: str\n\n\n"
    "class Level(enum.Enum):\n    LOW = 1\n"
)


def with_body(body: str, text: str | None = None) -> str:
    return (text or render_new(SPEC)).replace(STUB, body)


def test_a_new_module_imports_every_annotation_name_under_type_checking() -> None:
    text = render_new(SPEC)
    assert "from typing import TYPE_CHECKING\n\n" + LAZY_BOTH in text
    assert "\nfrom .types" not in text
    assert merge(text, SPEC).text == text


@pytest.mark.parametrize(
    ("body", "extra"),
    [
        ('return Report(text="sunny")', ""),  # constructing a TypedDict
        ("return {'text': str(isinstance(city, Report))}", ""),  # isinstance
        ("return {'text': str(Report.__annotations__)}", ""),  # attribute of the class
        ("return helper()", "\n\ndef helper(r: object = Report) -> Report:\n    return {}\n"),
        ("return {'text': ''}", "\n\nREPORT_KEYS = list(Report.__annotations__)\n"),
        ("return {'text': ''}", "\n\n@decorate(Report)\ndef other() -> None:\n    pass\n"),
        ("return {'text': ''}", "\n\nclass Mine(Report):\n    more: int\n"),
        ("return {'text': ''}", "\n\nhelper = lambda: Report(text='')\n"),
    ],
    ids=["call", "isinstance", "attribute", "default", "module", "decorator", "base", "lambda"],
)
def test_a_name_read_at_run_time_moves_to_the_real_import_and_back(body: str, extra: str) -> None:
    used = with_body(body) + extra
    moved = merge(used, SPEC).text
    assert "\nfrom .types import Report\n\nif TYPE_CHECKING:\n    from .types import Units\n" in (
        moved
    )
    assert merge(moved, SPEC).text == moved  # stable
    assert body in moved and extra.strip() in moved
    # The user stops using it: back under TYPE_CHECKING, nothing else touched.
    back = merge(moved.replace(body, 'return {"text": ""}').replace(extra.strip(), ""), SPEC).text
    assert LAZY_BOTH in back and "\nfrom .types import" not in back


@pytest.mark.parametrize(
    "use",
    [
        "\n\ndef helper(r: Report) -> Report:\n    return r\n",  # annotations only
        "\n\ndef helper() -> None:\n    local: Report = {'text': ''}\n    print(local)\n",
        "\n\nfrom typing import cast\n\n\ndef helper(x: object) -> Report:\n"
        "    return cast('Report', x)\n",
        "\n\nif TYPE_CHECKING:\n    Alias = list[Report]\n",
    ],
    ids=["helper-annotations", "local-annotation", "string-cast", "own-type-checking-block"],
)
def test_a_name_only_annotations_read_stays_under_type_checking(use: str) -> None:
    text = render_new(SPEC) + use
    assert merge(text, SPEC).text == text


@pytest.mark.parametrize(
    ("extra", "real"),
    [
        ("\n\nclass Request(BaseModel):\n    units: Units\n", "Units"),
        ("\n\n@validate_call\ndef helper(r: Report) -> None:\n    pass\n", "Report"),
        ("\n\nclass Row(TypedDict):\n    units: Units\n", None),
        ("\n\n@functools.cache\ndef helper(r: Units) -> Report:\n    return {}\n", None),
    ],
    ids=["model-field", "validating-decorator", "typeddict-field", "inert-decorator"],
)
def test_annotations_a_decorator_or_base_class_may_evaluate_are_imported_for_real(
    extra: str, real: str | None
) -> None:
    """pydantic, typeguard and the like evaluate annotations: their names must exist."""
    merged = merge(render_new(SPEC) + extra, SPEC).text
    if real is None:
        assert LAZY_BOTH in merged
    else:
        assert f"\nfrom .types import {real}\n" in merged


def test_a_handler_under_a_validating_decorator_imports_its_annotations_for_real() -> None:
    text = with_body('return {"text": city}').replace(
        "def get_weather(", "@validate_call\ndef get_weather("
    )
    merged = merge(text, SPEC).text
    assert "\nfrom .types import Report, Units\n" in merged and "TYPE_CHECKING" not in merged
    assert (
        merge(merged.replace("@validate_call\n", "@nonblocking\n"), SPEC).text.count(LAZY_BOTH) == 1
    )


def test_without_postponed_annotations_every_name_is_imported_for_real() -> None:
    text = render_new(SPEC).replace("from __future__ import annotations\n\n", "")
    merged = merge(text, SPEC).text
    assert "\nfrom .types import Report, Units\n" in merged
    assert "if TYPE_CHECKING" not in merged
    assert "TYPE_CHECKING" not in merged  # the import the block needed left with it
    assert merge(merged, SPEC).text == merged


def test_the_single_import_of_older_builds_is_migrated_keeping_what_surrounds_it() -> None:
    old = (
        '"""Handlers."""\n\nfrom __future__ import annotations\n\nimport logging\n'
        "from typing import Any, cast\n\n"
        "# the generated types\n"
        "from .api import text\n"
        "from .types import Level, Report, Units\n\n"
        "log = logging.getLogger(__name__)\n\n\n"
        '# mcp-codegen tool: "get_weather"\n'
        'def get_weather(*, city: str, units: Units = "c") -> Report:\n'
        '    """Weather."""\n'
        "    log.info(text(city), Level.LOW)\n"
        "    return cast(Any, {})\n"
    )
    spec = HandlerModuleSpec(SPEC.docstring, SPEC.managed_imports, SPEC.handlers)
    merged = merge(old, spec).text
    assert merged == old.replace(
        "from typing import Any, cast\n", "from typing import TYPE_CHECKING, Any, cast\n"
    ).replace(
        "from .types import Level, Report, Units\n",
        "from .types import Level\n\nif TYPE_CHECKING:\n    from .types import Report, Units\n",
    )
    assert format_python(merged) == merged  # isort- and black-clean
    assert merge(merged, spec).text == merged


def test_the_users_statements_in_the_block_are_kept_through_every_change() -> None:
    text = render_new(SPEC).replace(
        LAZY_BOTH,
        "if TYPE_CHECKING:\n    # for the helper\n    from collections.abc import Sequence\n\n"
        "    from .types import Report, Units\n\n    Pair = tuple[int, int]\n",
    )
    assert merge(text, SPEC).text == text
    used = merge(with_body('return Report(text="")', text), SPEC).text
    assert "\nfrom .types import Report\n\nif TYPE_CHECKING:\n" in used
    assert (
        "    # for the helper\n    from collections.abc import Sequence\n\n"
        "    from .types import Units\n\n    Pair = tuple[int, int]\n"
    ) in used
    # Every generated name read at run time: the block stays for the user's statements.
    both = merge(used.replace('Report(text="")', "Report(text=str(Units))"), SPEC).text
    assert "\nfrom .types import Report, Units\n\nif TYPE_CHECKING:\n    # for the helper\n" in both
    assert "    from collections.abc import Sequence\n\n    Pair = tuple[int, int]\n" in both
    assert "from typing import TYPE_CHECKING\n" in both  # the user's block still reads it
    assert merge(both, SPEC).text == both


def test_a_new_real_import_goes_with_the_imports_wherever_the_block_stands() -> None:
    """The user moved the block to the end; code above it reads a name as the module
    loads: the real import must come before that code, with the other imports."""
    text = render_new(SPEC).replace("\n" + LAZY_BOTH, "")
    text += "\n\nKEYS = list(Report.__annotations__)\n\n\n" + LAZY_BOTH
    merged = merge(text, SPEC).text
    assert merged.index("\nfrom .types import Report\n") < merged.index("KEYS = ")
    assert merged.endswith("\n\nif TYPE_CHECKING:\n    from .types import Units\n")
    assert merge(merged, SPEC).text == merged


def test_the_block_leaves_with_its_import_when_every_name_is_read_at_run_time() -> None:
    used = with_body("return Report(text=str(Units))")
    merged = merge(used, SPEC).text
    assert "TYPE_CHECKING" not in merged
    assert "\nfrom .types import Report, Units\n" in merged
    assert merge(merged, SPEC).text == merged


def test_the_type_checking_name_leaves_a_shared_typing_import_with_the_block() -> None:
    text = render_new(SPEC).replace(
        "from typing import TYPE_CHECKING\n", "from typing import TYPE_CHECKING, cast\n"
    )
    text = with_body('return cast("Report", {"text": ""})', text)
    assert merge(text, SPEC).text == text
    merged = merge(text.replace('cast("Report", {"text": ""})', "Report(text=str(Units))"), SPEC)
    assert "\nfrom typing import cast\n\nfrom .types import Report, Units\n" in merged.text
    assert "TYPE_CHECKING" not in merged.text


@pytest.mark.parametrize(
    ("binding", "test"),
    [
        ("import typing\n", "typing.TYPE_CHECKING"),
        ("TYPE_CHECKING = False\n", "TYPE_CHECKING"),
    ],
)
def test_a_users_own_type_checking_is_used_as_it_is(binding: str, test: str) -> None:
    text = render_new(SPEC).replace(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:", f"{binding}\nif {test}:"
    )
    assert merge(text, SPEC).text == text
    used = merge(with_body('return Report(text="")', text), SPEC).text
    assert "\nfrom .types import Report\n" in used and binding in used
    assert f"\nif {test}:\n    from .types import Units\n" in used
    assert "from typing import TYPE_CHECKING" not in used


def test_a_comment_on_an_import_in_the_block_stops_only_a_change() -> None:
    text = render_new(SPEC).replace(
        "    from .types import Report, Units\n", "    from .types import Report, Units  # noqa\n"
    )
    assert merge(text, SPEC).text == text
    with pytest.raises(MergeConflict, match="generated import at line 8 must change"):
        merge(with_body('return Report(text="")', text), SPEC)


def test_a_block_on_one_line_stops_only_a_change() -> None:
    text = render_new(SPEC).replace(
        LAZY_BOTH, "if TYPE_CHECKING: from .types import Report, Units\n"
    )
    assert merge(text, SPEC).text == text
    with pytest.raises(MergeConflict, match="put it on a line of its own below the `if`"):
        merge(with_body('return Report(text="")', text), SPEC)


def test_serving_never_loads_the_types_until_a_body_reads_one(tmp_path: Path) -> None:
    """The real module: importing handlers.py does not import `.types` while every name
    is only annotated; once a body builds a Report, the next build imports it for real.
    mypy --strict accepts both."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "types.py").write_text(TYPES_PY)
    probe = (
        "import sys, pkg.handlers as h; print('pkg.types' in sys.modules, h.get_weather(city='x'))"
    )

    def run(handlers: str) -> str:
        (package / "handlers.py").write_text(handlers)
        checked = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "pkg"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert checked.returncode == 0, checked.stdout + handlers
        ran = subprocess.run(
            [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
        )
        assert ran.returncode == 0, ran.stderr
        return ran.stdout.strip()

    assert run(with_body('return {"text": city}')) == "False {'text': 'x'}"
    edited = with_body("return Report(text=city.upper())")
    assert run(merge(edited, SPEC).text) == "True {'text': 'X'}"
    # A decorator that evaluates the handler's annotations as the module loads.
    checking = with_body('return {"text": city}').replace(
        '\n\n# mcp-codegen tool: "get_weather"\n',
        "\n\ndef checked(fn: Callable[..., Any]) -> Callable[..., Any]:\n"
        "    typing.get_type_hints(fn)\n    return fn\n\n\n"
        '# mcp-codegen tool: "get_weather"\n@checked\n',
    )
    checking = checking.replace(
        "from typing import TYPE_CHECKING\n",
        "import typing\nfrom collections.abc import Callable\nfrom typing import TYPE_CHECKING, Any\n",
    )
    assert run(merge(checking, SPEC).text) == "True {'text': 'x'}"
