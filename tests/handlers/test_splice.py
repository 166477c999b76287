"""The merge's fast path after an edit (handlers.splice): the same bytes as the full merge
on every edit, taken only where it applies, and never on a record that does not match."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_schemagen.diagnostics import BuildError
from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, MergeConflict, render_new
from mcp_schemagen.handlers import splice as splice_module
from mcp_schemagen.handlers.file import handlers_file, previous_digests, spec_to_json
from mcp_schemagen.handlers.merge import merge
from mcp_schemagen.record.manifest import HANDLERS_MODULE, Manifest
from mcp_schemagen.render.provenance import sha256_text


def handler(
    function: str, parameters: str = "", returns: str = "str", digest: str = ""
) -> HandlerSpec:
    return HandlerSpec(
        function, function, parameters, returns, f'"""The {function} tool."""', "tool", digest
    )


def spec(imports: str, *handlers: HandlerSpec) -> HandlerModuleSpec:
    return HandlerModuleSpec('"""Handlers."""', imports, handlers)


IMPORTS = "from .types import Report, Units"
WEATHER = handler("get_weather", "*, city: str, units: Units = 'c'", "Report", "d1")
PING = handler("ping", "", "str", "d2")
ECHO = handler("echo", "*, text: str", "str", "d3")
BEFORE = spec(IMPORTS, WEATHER, PING, ECHO)


def with_parameters(base: HandlerSpec, parameters: str, digest: str = "new") -> HandlerSpec:
    return HandlerSpec(
        base.function, base.tool, parameters, base.returns, base.docstring, base.kind, digest
    )


ADDED = with_parameters(ECHO, "*, text: str, added: int | None = None")
LONG = with_parameters(
    WEATHER,
    "*, city: str, units: Units = 'c', include_humidity: bool = False, wind: bool = False, "
    "days: int | None = None",
)

# Each edit: the spec after it, and whether the fast path may take it.
EDITS: dict[str, tuple[HandlerModuleSpec, bool]] = {
    "a property added": (spec(IMPORTS, WEATHER, PING, ADDED), True),
    "a long signature wraps": (spec(IMPORTS, LONG, PING, ECHO), True),
    "two handlers at once": (spec(IMPORTS, LONG, PING, ADDED), True),
    # the body the user wrote reads `text`: only the full merge may judge that
    "a property removed": (spec(IMPORTS, WEATHER, PING, with_parameters(ECHO, "")), True),
    "one added, one removed": (spec(IMPORTS, LONG, PING, with_parameters(ECHO, "")), True),
    "a removed annotation's type": (
        spec(IMPORTS, with_parameters(WEATHER, "*, city: str"), PING, ECHO),
        False,
    ),
    "a new generated type": (
        spec(IMPORTS + ", Extra", WEATHER, PING, with_parameters(ECHO, "*, text: Extra")),
        False,
    ),
    "a name the module binds": (
        spec(IMPORTS, WEATHER, PING, with_parameters(ECHO, "*, text: str, n: helper = 1")),
        False,
    ),
    "a docstring": (
        spec(IMPORTS, WEATHER, PING, HandlerSpec("echo", "echo", "*, text: str", "str", None)),
        False,
    ),
    "a return type": (
        spec(IMPORTS, WEATHER, PING, HandlerSpec("echo", "echo", "*, text: str", "int", None)),
        False,
    ),
    "a renamed tool": (spec(IMPORTS, WEATHER, PING, handler("shout", "*, text: str")), False),
    "an added tool": (spec(IMPORTS, WEATHER, PING, ECHO, handler("new_tool")), False),
    "a removed tool": (spec(IMPORTS, WEATHER, PING), False),
    "only a digest": (spec(IMPORTS, WEATHER, PING, with_parameters(ECHO, "*, text: str")), True),
}


def _user_bodies(text: str) -> str:
    """A user's work in the module: bodies, helpers, comments, async, a blank-line style."""
    text = text.replace(
        '    raise NotImplementedError("echo")\n',
        "    # keep: the echo\n    return helper(text)  # mine\n",
    )
    text = text.replace("def ping(", "async def ping(")
    return text + "\n\ndef helper(value: str) -> str:\n    return value.upper()\n"


def _kwargs(text: str) -> str:
    return text.replace("def echo(*, text: str)", "def echo(*, text: str, **rest: object)")


def _comment_in_signature(text: str) -> str:
    return text.replace("def echo(*, text: str)", "def echo(\n    *, text: str  # the text\n)")


def _decorated(text: str) -> str:
    return text.replace('# mcp-codegen tool: "echo"\n', '# mcp-codegen tool: "echo"\n@traced\n')


USER_EDITS: dict[str, Callable[[str], str]] = {
    "as generated": lambda text: text,
    "user bodies": _user_bodies,
    "user **kwargs": _kwargs,
    "a comment in a signature": _comment_in_signature,
    "a decorator": lambda text: "def traced(f): return f\n" + _decorated(text),
}


def _previous_build(package: Path, user_edit: Callable[[str], str]) -> Manifest:
    """The module as a build left it after the user's edits, and that build's record."""
    text = merge(user_edit(render_new(BEFORE)), BEFORE).text
    (package / HANDLERS_MODULE).write_text(text, encoding="utf-8")
    return Manifest({}, {}, sha256_text(text), spec_to_json(BEFORE))


def _count_splices(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    results: list[str | None] = []
    real = splice_module.spliced

    def counted(*args: object) -> str | None:
        result = real(*args)  # type: ignore[arg-type]
        results.append(result)
        return result

    monkeypatch.setattr("mcp_schemagen.handlers.file.spliced", counted)
    return results


@pytest.mark.parametrize("user", USER_EDITS)
@pytest.mark.parametrize("edit", EDITS)
def test_the_fast_path_writes_the_bytes_of_the_full_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str, user: str
) -> None:
    previous = _previous_build(tmp_path, USER_EDITS[user])
    after, fast = EDITS[edit]
    existing = (tmp_path / HANDLERS_MODULE).read_text(encoding="utf-8")
    splices = _count_splices(monkeypatch)
    try:
        full = merge(existing, after, previous_digests(previous)).text
    except MergeConflict as failure:  # the full merge refuses: so must the build
        with pytest.raises(BuildError) as raised:
            handlers_file(tmp_path, after, "handlers.py", previous)
        assert str(failure) in raised.value.diagnostics[0].message
        assert all(result is None for result in splices)
        return
    written, warnings = handlers_file(tmp_path, after, "handlers.py", previous)
    assert written.text == full
    taken = [result for result in splices if result is not None]
    if not fast:
        assert taken == []
    elif user == "as generated" or (user == "user bodies" and "removed" not in edit):
        assert taken, "the fast path should apply"
    elif user == "user bodies":
        assert taken == [], "the body reads the removed parameter"
    elif edit in ("a property added", "two handlers at once", "a property removed"):
        # **kwargs, a comment or a decorator on the changed handler: the full merge decides
        assert taken == []
    if taken:
        assert warnings == []


def test_a_stale_record_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    previous = _previous_build(tmp_path, lambda text: text)
    path = tmp_path / HANDLERS_MODULE
    # The user edited the module after that build: its digest no longer matches the record.
    edited = path.read_text(encoding="utf-8").replace("def echo(*, text: str)", "def echo()")
    path.write_text(edited, encoding="utf-8")
    splices = _count_splices(monkeypatch)
    after = EDITS["a property added"][0]
    written, _ = handlers_file(tmp_path, after, "handlers.py", previous)
    assert splices == []
    assert written.text == merge(edited, after, previous_digests(previous)).text


@pytest.mark.parametrize(
    "damage",
    [
        lambda handlers: {**handlers, "handlers": handlers["handlers"][:-1]},
        lambda handlers: {**handlers, "handlers": "not a list"},
        lambda handlers: {**handlers, "handlers": [*handlers["handlers"][:-1], None]},
        lambda handlers: {k: v for k, v in handlers.items() if k != "managed_imports"},
        lambda handlers: {**handlers, "type_names": ["Report"]},
        lambda handlers: {
            **handlers,
            "handlers": [{**h, "parameters": "*, (broken"} for h in handlers["handlers"]],
        },
    ],
)
def test_a_corrupt_record_falls_back_to_the_full_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: Callable[[dict], dict]
) -> None:
    good = _previous_build(tmp_path, _user_bodies)
    previous = Manifest({}, {}, good.handlers_sha256, damage(good.handlers))
    existing = (tmp_path / HANDLERS_MODULE).read_text(encoding="utf-8")
    splices = _count_splices(monkeypatch)
    after = EDITS["a property added"][0]
    written, _ = handlers_file(tmp_path, after, "handlers.py", previous)
    assert all(result is None for result in splices)
    assert written.text == merge(existing, after, previous_digests(previous)).text


def test_an_edit_build_does_not_load_libcst(tmp_path: Path) -> None:
    """The point of the fast path; run in a fresh interpreter, since tests load libcst."""
    import subprocess

    previous = _previous_build(tmp_path, _user_bodies)
    script = (
        "import sys, json, pathlib\n"
        "from mcp_schemagen.handlers.file import handlers_file, spec_from_json\n"
        "from mcp_schemagen.record.manifest import Manifest\n"
        f"previous = Manifest({{}}, {{}}, {previous.handlers_sha256!r}, "
        f"json.loads({__import__('json').dumps(previous.handlers)!r}))\n"
        f"after = spec_from_json(json.loads({__import__('json').dumps(spec_to_json(EDITS['a property added'][0]))!r}))\n"
        f"handlers_file(pathlib.Path({str(tmp_path)!r}), after, 'handlers.py', previous)\n"
        "print('libcst' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
