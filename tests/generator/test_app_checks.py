"""The MCP Apps build checks: each broken link between a tool and its view, each bad
`_meta.ui` field, a view over the size limit, a wrong type, refused at its file#/pointer
with how to fix it, and nothing built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.check.app_checks import MAX_VIEW_BYTES
from mcp_schemagen.check.app_meta_checks import origin_problem
from tests.support.apps_project import INCREMENT, PACKAGE, SHOW, VIEW, write_apps_project
from tests.support.projects import run_cli


def _ui(**fields: Any) -> dict[str, Any]:
    return {"ui": fields}


def _view(**fields: Any) -> dict[str, Any]:
    return {**VIEW, **fields}


def _tools(show: dict[str, Any] | None = None, increment: dict[str, Any] | None = None) -> Any:
    return {
        "show_counter.json": {**SHOW, **(show or {})},
        "increment.json": {**INCREMENT, **(increment or {})},
    }


CASES: dict[str, tuple[dict[str, Any], str]] = {
    "a tool names a view that does not exist": (
        {"tools": _tools({"_meta": _ui(resourceUri="ui://counter/veiw.html")})},
        "tools/show_counter.json#/_meta/ui/resourceUri: error: no view "
        "'ui://counter/veiw.html' in the project's resources; did you mean "
        "'ui://counter/view.html'? add a resource with that uri",
    ),
    "a view no tool names": (
        {"views": [VIEW, _view(uri="ui://counter/other.html", name="other")]},
        "resources/views.json#/1/uri: error: no tool names the view "
        "'ui://counter/other.html', so no host would show it",
    ),
    "a CSP domain that is not an origin": (
        {"views": [_view(_meta=_ui(csp={"connectDomains": ["https://api.example.com/v1"]}))]},
        "resources/views.json#/0/_meta/ui/csp/connectDomains/0: error: "
        "'https://api.example.com/v1' is not an origin (an origin has no path, query or "
        "fragment); write scheme://host[:port]",
    ),
    "a CSP domain without a scheme": (
        {"views": [_view(_meta=_ui(csp={"resourceDomains": ["cdn.example.com"]}))]},
        "resources/views.json#/0/_meta/ui/csp/resourceDomains/0: error: "
        "'cdn.example.com' is not an origin (no scheme)",
    ),
    "a misspelt CSP list": (
        {"views": [_view(_meta=_ui(csp={"conectDomains": ["https://a.example"]}))]},
        "resources/views.json#/0/_meta/ui/csp/conectDomains: error: 'conectDomains' is not "
        "a field of _meta.ui.csp; did you mean 'connectDomains'?",
    ),
    "a border preference that is not a boolean": (
        {"views": [_view(_meta=_ui(prefersBorder="yes"))]},
        "resources/views.json#/0/_meta/ui/prefersBorder: error: must be true or false",
    ),
    "a wrong mime type": (
        {"views": [_view(mimeType="text/html")]},
        "resources/views.json#/0/mimeType: error: a view's mimeType must be "
        "'text/html;profile=mcp-app' (the extension's HTML profile), got 'text/html'",
    ),
    "a view's type on a resource that is not ui://": (
        {"views": [_view(uri="app://counter")]},
        "resources/views.json#/0/uri: error: a resource of type 'text/html;profile=mcp-app' "
        "is a view, whose uri uses the ui:// scheme",
    ),
    "a view over the size limit": (
        {"html": "<p>" + "x" * MAX_VIEW_BYTES + "</p>"},
        f"resources/views.json#/0/x-mcp-codegen-file: error: the view is {MAX_VIEW_BYTES + 7} "
        f"bytes, over the {MAX_VIEW_BYTES} (2 MiB) a view may have",
    ),
    "a visibility that is not model or app": (
        {"tools": _tools(increment={"_meta": _ui(resourceUri=VIEW["uri"], visibility=["ui"])})},
        "tools/increment.json#/_meta/ui/visibility/0: error: 'ui' is not a visibility; use "
        '"model", "app"',
    ),
    "a resourceUri that is not ui://": (
        {"tools": _tools({"_meta": _ui(resourceUri="https://example.com/view.html")})},
        "tools/show_counter.json#/_meta/ui/resourceUri: error: must be the ui:// URI of a "
        "view (a resource of the project), got 'https://example.com/view.html'",
    ),
    "a view link no targeted revision publishes": (
        {"revisions": ("2025-03-26",)},
        "tools/show_counter.json#/_meta/ui/resourceUri: error: none of the targeted "
        "revisions publishes a tool's _meta, so no host would find this view; target "
        "2025-06-18 or newer",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_broken_app_is_refused_where_it_is_broken(case: str, tmp_path: Path) -> None:
    options, expected = CASES[case]
    root = write_apps_project(tmp_path / "p", **options)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2, err
    assert expected in err, err
    assert not (root / PACKAGE / "_dispatch.py").exists()


def test_the_sound_project_builds(tmp_path: Path) -> None:
    root = write_apps_project(tmp_path / "p")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("https://api.example.com", None),
        ("https://*.example.com", None),
        ("wss://live.example.com:8443", None),
        ("http://[::1]:8080", None),
        ("http://127.0.0.1:3000", None),
        ("ftp://files.example.com", "the scheme is 'ftp', not one of https, http, wss, ws"),
        ("https://", "no host"),
        ("https://user@example.com", "an origin has no user name or password"),
        ("https://example.com:99999", "'99999' is not a port"),
        ("https://exa mple.com", "'exa mple.com' is not a host name"),
        ("https://example.com?x=1", "an origin has no path, query or fragment"),
        (42, "int is not a string"),
    ],
)
def test_what_is_an_origin(value: Any, reason: str | None) -> None:
    assert origin_problem(value) == reason


def test_the_deprecated_flat_key_names_a_view_with_a_warning(tmp_path: Path) -> None:
    legacy = {**SHOW, "_meta": {"ui/resourceUri": VIEW["uri"]}}
    root = write_apps_project(
        tmp_path / "p", tools={"show_counter.json": legacy, "increment.json": INCREMENT}
    )
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert (
        "tools/show_counter.json#/_meta/ui~1resourceUri: warning: 'ui/resourceUri' is the "
        'extension\'s deprecated form; write "_meta": {"ui": {"resourceUri": ...}}'
    ) in err
    assert "ShowCounterArguments" in (root / "views" / "counter.d.ts").read_text(encoding="utf-8")
    missing = {**SHOW, "_meta": {"ui/resourceUri": "ui://counter/gone.html"}}
    write_apps_project(root, tools={"show_counter.json": missing, "increment.json": INCREMENT})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert (
        "tools/show_counter.json#/_meta/ui~1resourceUri: error: no view 'ui://counter/gone.html'"
        in err
    )
