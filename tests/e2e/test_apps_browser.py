"""MCP Apps with real parts: the extension SDK's host side (AppBridge) and the official
TypeScript client in headless Chromium, connected over Streamable HTTP on 127.0.0.1 to a
generated server, render the view a tool names, deliver the tool's input and result to
it, and the view's call back to a tool reaches the handler (asserted on the server's
side). The view is TypeScript typed by the .d.ts the build wrote, checked by tsc first;
a screenshot is kept under .cache/artefacts/ (ignored) and its path printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.app_host import bundle, host_site, inline_view, prepare, typecheck
from tests.support.apps_project import PACKAGE, VIEW_MIME, VIEW_URI, build_apps_project
from tests.support.chromium import CHROMIUM, Chromium
from tests.support.http_server import free_port, http_command, serving
from tests.support.node import node_toolchain
from tests.support.paths import REPO
from tests.support.projects import run_cli

ARTEFACTS = REPO / ".cache" / "artefacts"
RENDER_TIMEOUT_S = 60.0

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package chromium)"
)


def test_the_generated_declarations_type_the_views_code(tmp_path: Path) -> None:
    root = build_apps_project(tmp_path / "p")
    node = node_toolchain()
    prepare(tmp_path / "view", root / "views" / "counter.d.ts", node)
    checked = typecheck(tmp_path / "view", node, "view.ts")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = typecheck(tmp_path / "view", node, "misuse.ts")
    assert refused.returncode != 0
    errors = refused.stdout
    assert "misuse.ts(4," in errors and "Type 'string' is not assignable to type 'number'" in errors
    assert "misuse.ts(5," in errors and '"decrement"' in errors
    assert "misuse.ts(6," in errors and "Property 'start' is missing" in errors


def test_a_host_in_chromium_renders_the_view_and_its_call_reaches_the_handler(
    tmp_path: Path,
) -> None:
    root = tmp_path / "p"
    node = node_toolchain()
    # The view's sources are built against the declarations of a first build, then
    # shipped as the view's HTML: a second build serves that file.
    build_apps_project(root, revisions=("2025-06-18", "2025-11-25", "2026-07-28"))
    site = tmp_path / "site"
    prepare(site, root / "views" / "counter.d.ts", node)
    bundle(site, node, "view.ts", "view.js")
    bundle(site, node, "host.ts", "host.js")
    inline_view(site, root / "views" / "counter.html")
    handlers = (root / PACKAGE / "handlers.py").read_text(encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    assert (root / PACKAGE / "handlers.py").read_text(encoding="utf-8") == handlers
    port = free_port()
    log = root / "calls.log"
    with (
        serving(root, http_command(PACKAGE, port), port, tmp_path / "server.log"),
        host_site(site, port) as page,
    ):
        browser = Chromium(tmp_path / "profile", tmp_path / "chromium.log")
        try:
            browser.open(page)
            report = browser.wait_for(
                "(window.hostReport || []).some(l => l.startsWith('view log:') || "
                "l.startsWith('error:')) && window.hostReport",
                RENDER_TIMEOUT_S,
            )
            shot = browser.screenshot(ARTEFACTS / "apps-view.png")
            print(f"MCP Apps screenshot: {shot}")
        finally:
            browser.close()
    assert report, (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "error" not in " ".join(report), report
    assert report[0] == "tools: show_counter"  # increment is the view's alone
    assert report[1].startswith(f"view: {VIEW_URI} {VIEW_MIME} ")
    assert json.loads(report[1].split(" ", 3)[3]) == {
        "ui": {"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": True}
    }
    assert "result delivered" in report
    assert "view log: view shows 42" in report
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert calls == [
        {"tool": "show_counter", "arguments": {"start": 41}},  # the host's call
        {"tool": "increment", "arguments": {"value": 41, "note": None}},  # the view's call
    ]
    assert shot.stat().st_size > 1000
