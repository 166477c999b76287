"""Resource files: the shapes a file may hold, the exact diagnostics of bad resources and
templates (at ``file#/pointer``), content files (read at build, inside the project only),
reader stubs, what older revisions' clients lose, and the fingerprint `check` uses."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.load.config import load_config
from mcp_schemagen.load.resources import resources_in
from mcp_schemagen.record.fingerprint import input_digests
from tests.support.projects import run_cli, tool, write_project

ALL = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
TEXT = {"uri": "app://readme", "name": "readme", "mimeType": "text/markdown"}
TEMPLATE = {"uriTemplate": "app://logs/{day}{?level}", "name": "logs"}


def _project(tmp_path: Path, resources: dict[str, Any], revisions: tuple[str, ...] = ALL) -> Path:
    root = write_project(tmp_path / "p", {"echo.json": tool()}, revisions=revisions)
    (root / "resources").mkdir()
    for name, content in resources.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (root / "resources" / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("document", "pointers"),
    [
        (TEXT, [""]),
        (TEMPLATE, [""]),
        ([TEXT, TEMPLATE], ["/0", "/1"]),
        ({"resources": [TEXT]}, ["/resources/0"]),
        ({"resourceTemplates": [TEMPLATE]}, ["/resourceTemplates/0"]),
        (
            {"result": {"resources": [TEXT], "resourceTemplates": [TEMPLATE]}},
            ["/result/resources/0", "/result/resourceTemplates/0"],
        ),
    ],
)
def test_a_file_holds_a_resource_a_list_or_a_listing(document: Any, pointers: list[str]) -> None:
    found, problems = resources_in(document, "resources/x.json")
    assert not problems
    assert [s.pointer for s in found] == pointers


CASES: dict[str, tuple[dict[str, Any], str]] = {
    "duplicate uri": (
        {"a.json": TEXT, "b.json": {**TEXT, "name": "other"}},
        "resources/b.json#/uri: error: resource URI 'app://readme' is already used at"
        " resources/a.json#/uri; each must be unique",
    ),
    "duplicate name": (
        {"a.json": [TEXT, {**TEMPLATE, "name": "readme"}]},
        "resources/a.json#/1/name: error: resource name 'readme' is already used at"
        " resources/a.json#/0/name",
    ),
    "duplicate template": (
        {"a.json": [TEMPLATE, {**TEMPLATE, "name": "other"}]},
        "resources/a.json#/1/uriTemplate: error: resource URI template 'app://logs/{day}{?level}'"
        " is already used at resources/a.json#/0/uriTemplate",
    ),
    "unclosed expression": (
        {"a.json": {"uriTemplate": "app://logs/{day", "name": "t"}},
        "resources/a.json#/uriTemplate: error: 'app://logs/{day' is not an RFC 6570 URI template:"
        " '{' is never closed (at character 12)",
    ),
    "reserved operator": (
        {"a.json": {"uriTemplate": "app://x/{=day}", "name": "t"}},
        "resources/a.json#/uriTemplate: error: 'app://x/{=day}' is not an RFC 6570 URI template:"
        " operator '=' is reserved by RFC 6570",
    ),
    "a variable twice": (
        {"a.json": {"uriTemplate": "app://{a}/{a}", "name": "t"}},
        "resources/a.json#/uriTemplate: error: 'app://{a}/{a}' is not an RFC 6570 URI template:"
        " variable 'a' appears twice",
    ),
    "a template without variables": (
        {"a.json": {"uriTemplate": "app://fixed", "name": "t"}},
        "resources/a.json#/uriTemplate: error: 'app://fixed' has no variables ({name}); a fixed"
        ' URI is a static resource: write it as "uri"',
    ),
    "schema of an unknown variable": (
        {"a.json": {**TEMPLATE, "x-mcp-codegen-schema": {"dya": {"pattern": "^x$"}}}},
        "resources/a.json#/x-mcp-codegen-schema/dya: error: 'dya' is not a variable of"
        " 'app://logs/{day}{?level}'; did you mean 'day'?",
    ),
    "variable schema of a number": (
        {"a.json": {**TEMPLATE, "x-mcp-codegen-schema": {"day": {"type": "integer"}}}},
        'resources/a.json#/x-mcp-codegen-schema/day/type: error: must be "string" (or left'
        " out): URI template variables are strings",
    ),
    "invalid variable schema": (
        {"a.json": {**TEMPLATE, "x-mcp-codegen-schema": {"day": {"minLength": -1}}}},
        "resources/a.json#/x-mcp-codegen-schema/day/minLength: error:",
    ),
    "a file on a template": (
        {"a.json": {**TEMPLATE, "x-mcp-codegen-file": "a.txt"}},
        "resources/a.json#/x-mcp-codegen-file: error: x-mcp-codegen-file belongs on a static"
        " resource (uri)",
    ),
    "misspelt field": (
        {"a.json": {**TEXT, "mimetype": "text/plain"}},
        "resources/a.json#/mimetype: error: unknown resource field 'mimetype'; did you mean"
        " 'mimeType'?",
    ),
    "no scheme": (
        {"a.json": {**TEXT, "uri": "readme.md"}},
        'resources/a.json#/uri: error: a resource needs a "uri": an absolute URI with a scheme',
    ),
    "no name": (
        {"a.json": {"uri": "app://x"}},
        'resources/a.json#/name: error: a resource needs a "name": a non-empty string',
    ),
    "not a valid Resource": (
        {"a.json": {**TEXT, "size": "big"}},
        "resources/a.json#/size: error: not a valid 2026-07-28 Resource: 'big' is not of type"
        " 'integer'",
    ),
    "content file missing": (
        {"a.json": {**TEXT, "x-mcp-codegen-file": "docs/none.md"}},
        "resources/a.json#/x-mcp-codegen-file: error: 'docs/none.md': no such file in the project",
    ),
    "content file outside": (
        {"a.json": {**TEXT, "x-mcp-codegen-file": "../secret.txt"}},
        "resources/a.json#/x-mcp-codegen-file: error: '../secret.txt' leads outside the project",
    ),
    "content file in the package": (
        {"a.json": {**TEXT, "x-mcp-codegen-file": "server/handlers.py"}},
        "resources/a.json#/x-mcp-codegen-file: error: 'server/handlers.py' is in the generated"
        " package, which each build rewrites",
    ),
    "absolute content file": (
        {"a.json": {**TEXT, "x-mcp-codegen-file": "/etc/hostname"}},
        "resources/a.json#/x-mcp-codegen-file: error: '/etc/hostname' is absolute",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_resources_are_located_errors(case: str, tmp_path: Path) -> None:
    files, expected = CASES[case]
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    root = _project(tmp_path, files)
    (root / "server").mkdir(exist_ok=True)
    (root / "server" / "handlers.py").write_text('"""Handlers."""\n', encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert expected in err, err
    assert not (root / "server" / "_dispatch.py").exists()


def test_a_content_file_linked_from_outside_is_refused_unread(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("never served", encoding="utf-8")
    root = _project(tmp_path, {"a.json": {**TEXT, "x-mcp-codegen-file": "docs/readme.md"}})
    (root / "docs").mkdir()
    os.symlink(outside, root / "docs" / "readme.md")
    code, _, err = run_cli("build", "-q", "--allow-outside-project", str(root))
    assert code == 2
    assert "resources/a.json#/x-mcp-codegen-file: error: 'docs/readme.md' leads outside" in err


def test_text_that_is_not_utf8_under_a_text_type_is_an_error(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.json": {**TEXT, "x-mcp-codegen-file": "r.md"}})
    (root / "r.md").write_bytes(b"\xff\xfe")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert "resources/a.json#/x-mcp-codegen-file: error: the file is not UTF-8 text" in err


def test_readers_are_typed_stubs_and_files_are_shipped(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "a.yaml": (
                "- uri: app://readme\n  name: readme\n  mimeType: text/markdown\n"
                "  x-mcp-codegen-file: docs/readme.md\n"
                "- uri: app://logo\n  name: logo\n  mimeType: image/png\n"
                "  x-mcp-codegen-file: docs/logo.png\n"
                "- uri: app://status\n  name: status\n"
                "- uriTemplate: app://logs/{day}{?level}\n  name: logs\n"
                "  x-mcp-codegen-schema:\n    level: {enum: [info, error]}\n"
            )
        },
    )
    (root / "docs").mkdir()
    (root / "docs" / "readme.md").write_text("# Hello\n", encoding="utf-8")
    (root / "docs" / "logo.png").write_bytes(b"\x89PNG\x00")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert (
        '# mcp-codegen resource: "app://status"\ndef read_status() -> ResourceReturn:' in handlers
    )
    assert (
        '# mcp-codegen resource: "app://logs/{day}{?level}"\n'
        "def read_logs(*, day: str, level: LogsResourceLevel | None = None) -> ResourceReturn:"
    ) in handlers
    assert "readme" not in handlers and "logo" not in handlers  # served from their files
    dispatch = (root / "server" / "_dispatch.py").read_text(encoding="utf-8")
    assert '"text": "# Hello\\n"' in dispatch
    assert '"blob": "iVBORwA="' in dispatch
    types = (root / "server" / "types.py").read_text(encoding="utf-8")
    assert "LogsResourceLevel = Literal['info', 'error']" in types or (
        'LogsResourceLevel = Literal["info", "error"]' in types
    )
    # A body the author wrote is kept when the template changes; the signature follows.
    handlers = handlers.replace('raise NotImplementedError("app://status")', 'return "ok"')
    (root / "server" / "handlers.py").write_text(handlers, encoding="utf-8")
    resources = root / "resources" / "a.yaml"
    resources.write_text(
        resources.read_text(encoding="utf-8").replace("{?level}", "{?level,limit}"),
        encoding="utf-8",
    )
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert 'return "ok"' in handlers
    assert "level: LogsResourceLevel | None = None, limit: str | None = None" in handlers


def test_older_clients_lose_fields_with_one_warning_each(tmp_path: Path) -> None:
    resource = {**TEXT, "title": "Read me", "annotations": {"lastModified": "2025-01-01"}}
    root = _project(tmp_path, {"a.json": resource, "b.json": {**TEMPLATE, "title": "Logs"}})
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert (
        "resources/a.json#/title: warning: protocol revisions 2024-11-05, 2025-03-26 do not"
        " define this; their clients receive the resource without title (so do 1 other"
        ' resources, e.g. resources/b.json#/title); to silence: accept-omitted = ["title"]'
    ) in err
    assert "resources/a.json#/annotations/lastModified: warning:" in err
    quiet = _project(tmp_path / "q", {"a.json": resource})
    pyproject = quiet / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + 'accept-omitted = ["title", "annotations/lastModified"]\n',
        encoding="utf-8",
    )
    code, _, err = run_cli("build", str(quiet))
    assert code == 0 and "warning" not in err, err


def test_resource_and_content_files_are_fingerprinted(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.json": {**TEXT, "x-mcp-codegen-file": "docs/readme.md"}})
    (root / "docs").mkdir()
    (root / "docs" / "readme.md").write_text("one", encoding="utf-8")
    digests = input_digests(load_config(root))
    assert "resources/a.json" in digests and "docs/readme.md" in digests
    assert run_cli("build", "-q", str(root))[0] == 0
    assert run_cli("check", "-q", str(root))[0] == 0
    (root / "docs" / "readme.md").write_text("two", encoding="utf-8")
    code, out, _ = run_cli("check", "-q", str(root))
    assert code == 1 and "docs/readme.md: changed since the last build" in out


def test_the_build_summary_counts_resources_and_says_so_again_when_up_to_date(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, {"all.json": [TEXT, TEMPLATE]}, revisions=("2025-11-25",))
    code, out, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    assert "server: 1 tool, 2 resources, protocol revisions 2025-11-25" in out, out
    code, out, err = run_cli("build", "-q", str(root))
    assert (code, out) == (0, "server: up to date (1 tool, 2 resources)\n"), err
