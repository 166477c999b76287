"""Patterns of real servers' tool schemas that once gave wrong code: `"default": null` on
a property whose schema rejects null, a tool named like a builtin, and an adopted tools/list
whose order is part of the server's contract. Each is checked where it matters: the
handler's annotations (typing.get_type_hints, mypy --strict over the package) and what the
running server does."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.projects import mypy_strict, run_cli, tool, write_project
from tests.support.stdio_conversation import Conversation, meta

# The shape of one real server's 41 tools: optional filters declared with "default": null
# but typed as a plain string or integer.
SEARCH = {
    "name": "search_issues",
    "description": "Search issues.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "owner": {"type": "string", "default": None},
            "per_page": {"type": "integer", "default": None},
            "labels": {"type": "array", "items": {"type": "string"}, "default": None},
            "state": {"type": "string", "enum": ["open", "closed"], "default": None},
        },
        "required": ["query"],
    },
}
LISTING = {
    "tools": [
        {"name": "zeta", "inputSchema": {"type": "object"}},
        {
            "name": "list",
            "description": "A tool named like a builtin.",
            "inputSchema": {"type": "object"},
        },
        SEARCH,
        {"name": "alpha", "inputSchema": {"type": "object"}},
    ]
}
BODIES = {
    'raise NotImplementedError("search_issues")': (
        "return f'{owner!r} {per_page!r} {labels!r} {state!r}'"
    ),
    'raise NotImplementedError("list")': "return [text(str(len(list[int]())))]",
    'raise NotImplementedError("zeta")': "return 'z'",
    'raise NotImplementedError("alpha")': "return max(['a'])",
    'raise NotImplementedError("first")': "return 'first'",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(
        tmp_path_factory.mktemp("real"),
        {
            "b_listing.json": LISTING,
            "a_first.json": {"name": "first", "inputSchema": {"type": "object"}},
        },
    )
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    for stub, body in BODIES.items():
        source = source.replace(stub, body)
    source = source.replace(
        "from __future__ import annotations\n",
        "from __future__ import annotations\n\nfrom .api import text\n",
    )
    handlers.write_text(source, encoding="utf-8")
    return root


# The names a type checker resolves handler annotations with: the module's own, over the
# generated types it imports under `if TYPE_CHECKING:` (which serving never loads).
RESOLVE = (
    "import typing, server.handlers as h, server.types as t;"
    "names = {**{n: getattr(t, n) for n in t.__all__}, **vars(h)}"
)


def _python(root: Path, code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def conversation(project: Path, tmp_path: Path) -> Iterator[Conversation]:
    opened = Conversation(project, "server", "2026-07-28", tmp_path / "stderr.txt")
    yield opened
    opened.kill()


def _call(conversation: Conversation, name: str, arguments: dict[str, Any]) -> str:
    result = conversation.result(
        "tools/call", {"name": name, "arguments": arguments, "_meta": meta()}
    )
    assert not result.get("isError"), result
    return str(result["content"][0]["text"])


def test_generated_package_with_these_patterns_passes_mypy_strict(project: Path) -> None:
    result = mypy_strict(project, "server")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_null_default_makes_the_parameter_admit_none(project: Path) -> None:
    hints = _python(
        project,
        f"{RESOLVE};"
        "print({k: str(v) for k, v in typing.get_type_hints(h.search_issues, names).items()})",
    )
    assert "'owner': 'str | None'" in hints
    assert "'per_page': 'int | None'" in hints
    assert "'labels': 'list[str] | None'" in hints
    assert "'query': \"<class 'str'>\"" in hints


def test_the_handler_receives_none_for_an_omitted_null_default(
    conversation: Conversation,
) -> None:
    assert _call(conversation, "search_issues", {"query": "bug"}) == "None None None None"
    called = _call(conversation, "search_issues", {"query": "bug", "owner": "me", "per_page": 5})
    assert called == "'me' 5 None None"


def test_a_tool_named_like_a_builtin_does_not_shadow_it(
    project: Path, conversation: Conversation
) -> None:
    source = (project / "server" / "handlers.py").read_text(encoding="utf-8")
    assert "def list_() -> ToolReturn:" in source
    # Every handler's annotations resolve in the module's namespace.
    _python(
        project,
        f"{RESOLVE}; import inspect;"
        "[typing.get_type_hints(f, names) for _, f in inspect.getmembers(h, inspect.isfunction)]",
    )
    assert _call(conversation, "list", {}) == "0"
    assert _call(conversation, "alpha", {}) == "a"


def test_tools_keep_the_order_of_their_files_and_of_an_adopted_listing(
    project: Path, conversation: Conversation
) -> None:
    listed = conversation.result("tools/list", {"_meta": meta()})["tools"]
    # Files by path (a_first.json, then b_listing.json), each in the order written.
    assert [t["name"] for t in listed] == ["first", "zeta", "list", "search_issues", "alpha"]
    source = (project / "server" / "handlers.py").read_text(encoding="utf-8")
    order = [
        source.index(f"def {name}(")
        for name in ("first", "zeta", "list_", "search_issues", "alpha")
    ]
    assert order == sorted(order)


def test_shared_definitions_and_unions_get_one_plain_name_each(tmp_path: Path) -> None:
    """A `$defs` entry several schemas define alike is one public type (not one per tool
    and direction); a union parameter names its member classes, with no numbered names;
    the structural TypedDicts let a value of one tool's Place serve another's."""
    case = Path(__file__).parent / "cases" / "descriptions-unions-shared-defs" / "input"
    root = tmp_path / "shared"
    shutil.copytree(case, root)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    types = (root / "server" / "types.py").read_text(encoding="utf-8")
    assert '"Place",' in types
    assert "Place as" not in types and "PlanTripPlace" not in types
    public = re.findall(r'^    "(\w+)",$', types, re.MULTILINE)
    assert "PlanTripViaStation" in public and "PlanTripViaLatLon" in public
    assert [name for name in public if name[-1].isdigit()] == []
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    assert "destination: Place | PlanTripDestination" in source
    assert "def weather_at(*, where: Place)" in source
    source = source.replace('raise NotImplementedError("plan_trip")', 'return {"stops": [origin]}')
    source = source.replace('raise NotImplementedError("weather_at")', 'return where["city"]')
    handlers.write_text(source, encoding="utf-8")
    result = mypy_strict(root, "server")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_handler_named_like_an_imported_type_does_not_shadow_it(tmp_path: Path) -> None:
    one_of = {"oneOf": [{"type": "object"}, {"type": "object", "required": ["a"]}]}
    listing = {
        "tools": [
            {"name": "foo", "inputSchema": {"type": "object", **one_of}},
            {"name": "FooInput", "inputSchema": {"type": "object"}},
        ]
    }
    root = write_project(tmp_path / "p", {"tools.json": listing})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    source = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    # The tool named "FooInput" keeps its handler name, since every handler name is
    # reserved before any type is named; foo's input type steps aside instead.
    assert "def foo(arguments: Foo2Input)" in source
    assert "def FooInput()" in source
    result = mypy_strict(root, "server")
    assert result.returncode == 0, result.stdout + result.stderr


# Common in real API schemas (GitHub's, Slack's, OpenAI's): named keys beside a
# schema-valued additionalProperties (PEP 728 extra_items, which the pinned mypy refuses),
# and an allOf that makes a base's optional field required or narrows it (a TypedDict
# subclass redefining a key: refused too).
_BASE = {
    "type": "object",
    "properties": {"id": {"type": "string", "description": "Its id."}, "n": {"type": "integer"}},
}
MYPY_HOSTILE = {
    "name": "label_issue",
    "inputSchema": {
        "type": "object",
        "properties": {
            "labels": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "additionalProperties": {"type": "integer"},
            },
            "meta": {
                "type": "object",
                "properties": {"k": {"type": "string"}},
                "additionalProperties": {"type": "object", "properties": {"v": {"type": "string"}}},
            },
            "issue": {"$ref": "#/$defs/Issue"},
            "closed_issue": {"$ref": "#/$defs/ClosedIssue"},
            "base": {"$ref": "#/$defs/Base"},
        },
        "required": ["issue"],
        "$defs": {
            "Base": _BASE,
            "Issue": {"allOf": [{"$ref": "#/$defs/Base"}, {"required": ["id"]}]},
            "ClosedIssue": {
                "allOf": [
                    {"$ref": "#/$defs/Issue"},
                    {"properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]},
                ]
            },
        },
    },
}


def test_extra_items_and_an_allof_that_requires_a_base_field_pass_mypy_strict(
    tmp_path: Path,
) -> None:
    # The root itself an allOf that requires a base's optional key (its class is the last
    # of its module).
    root_all_of = {
        "type": "object",
        "allOf": [{"$ref": "#/$defs/Draft"}],
        "properties": {"title": {"type": "string"}},
        "required": ["title"],
        "$defs": {"Draft": {"type": "object", "properties": {"title": {"type": "string"}}}},
    }
    files = {"label.json": MYPY_HOSTILE, "publish.json": tool("publish", inputSchema=root_all_of)}
    root = write_project(tmp_path / "p", files)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    types = (root / "server" / "types.py").read_text(encoding="utf-8")
    assert "extra_items" not in types.replace("PEP 728 extra_items", "")
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    # The body uses what the types promise: a required id, a named key beside the others.
    source = source.replace(
        'raise NotImplementedError("label_issue")',
        'return issue["id"] + str((labels or {}).get("name"))',
    )
    handlers.write_text(source, encoding="utf-8")
    result = mypy_strict(root, "server")
    assert result.returncode == 0, result.stdout + result.stderr


CREATE = {
    "name": "create_ticket",
    "inputSchema": {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}, "default": []},
            "body": {"type": "string"},
            "fields": {"type": "object", "additionalProperties": {"type": "string"}, "default": {}},
            "limits": {"type": "array", "items": {"type": "integer"}, "default": [1, 2]},
        },
        "required": ["title"],
    },
}


def test_array_and_object_defaults_reach_the_signature_in_the_safe_form(tmp_path: Path) -> None:
    """`"default": []` makes the parameter optional (`= None`, not a shared list), after
    the required ones; the server passes a fresh copy of the default when it is omitted."""
    root = write_project(tmp_path / "p", {"create.json": CREATE})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    assert (
        "def create_ticket(\n    *,\n    title: str,\n    tags: list[str] | None = None,\n"
        "    body: str | None = None,\n    fields: dict[str, str] | None = None,\n"
        "    limits: list[int] | None = None,\n) -> ToolReturn:"
    ) in source, source
    assert "Default []: the server passes a fresh copy" in source
    body = (
        "assert tags is not None and limits is not None\n"
        "    tags.append(title)  # mutating the copy must not change the next call's default\n"
        "    return f'{tags} {fields} {limits} {body}'"
    )
    handlers.write_text(source.replace('raise NotImplementedError("create_ticket")', body))
    result = mypy_strict(root, "server")
    assert result.returncode == 0, result.stdout + result.stderr
    conversation = Conversation(root, "server", "2026-07-28", tmp_path / "stderr.txt")
    try:
        for _ in range(2):
            text = _call(conversation, "create_ticket", {"title": "t"})
            assert text == "['t'] {} [1, 2] None"
        given = _call(conversation, "create_ticket", {"title": "t", "tags": ["a"], "body": "b"})
        assert given == "['a', 't'] {} [1, 2] b"
    finally:
        conversation.kill()
