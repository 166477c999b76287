"""The page side of the MCP Apps browser test: the host page and the view built with
esbuild from tests/e2e/apps_view/ (the view typed by the build's .d.ts, checked by tsc),
served on 127.0.0.1 together with a same-origin proxy to the generated server's /mcp,
since the generated server answers no CORS preflight (a real host's page talks to its
own backend the same way)."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from tests.support.node import NodeToolchain

SOURCES = Path(__file__).resolve().parent.parent / "e2e" / "apps_view"
BUILD_TIMEOUT_S = 120
_FORWARDED = ("content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id")


def prepare(folder: Path, declarations: Path, node: NodeToolchain) -> None:
    """The sources and the view's generated declarations in ``folder``, with the locked
    node_modules linked in so tsc and esbuild resolve the SDKs."""
    shutil.copytree(SOURCES, folder)
    shutil.copy(declarations, folder / "counter.d.ts")
    (folder / "node_modules").symlink_to(node.node_modules, target_is_directory=True)


def typecheck(folder: Path, node: NodeToolchain, *files: str) -> subprocess.CompletedProcess[str]:
    """tsc --strict over ``files`` (with the declarations they import), emitting nothing."""
    tsc = node.node_modules / "typescript" / "bin" / "tsc"
    options = ["--strict", "--noEmit", "--skipLibCheck", "--target", "ES2022"]
    options += ["--module", "ESNext", "--moduleResolution", "bundler", "--lib", "ES2022,DOM"]
    return subprocess.run(
        [str(node.node), str(tsc), *options, *files],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        env=node.environment(),
    )


def bundle(folder: Path, node: NodeToolchain, entry: str, out: str) -> None:
    subprocess.run(
        [
            str(node.bin("esbuild")),
            entry,
            "--bundle",
            "--format=iife",
            "--platform=browser",
            "--target=es2022",
            f"--outfile={out}",
            "--log-level=warning",
        ],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=BUILD_TIMEOUT_S,
        env=node.environment(),
    )


def inline_view(folder: Path, html: Path) -> str:
    """view.html with the bundled view script inlined: one self-contained document, as a
    view is served (hosts load nothing else unless its CSP says so)."""
    script = (folder / "view.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
    page = (folder / "view.html").read_text(encoding="utf-8").replace("/*VIEW_SCRIPT*/", script)
    html.write_text(page, encoding="utf-8")
    return page


@contextlib.contextmanager
def host_site(folder: Path, mcp_port: int) -> Iterator[str]:
    """host.html and host.js from ``folder`` and /mcp forwarded to the server on
    ``mcp_port``, on a free port of 127.0.0.1; yields the host page's URL."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/mcp"):  # no standalone stream: the SDK accepts 405
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            super().do_GET()

        def do_POST(self) -> None:
            self._forward()

        def do_DELETE(self) -> None:
            self._forward()

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() in _FORWARDED}
            upstream = http.client.HTTPConnection("127.0.0.1", mcp_port, timeout=30)
            try:
                upstream.request(self.command, "/mcp", body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()  # a POST's stream ends with its response
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() in _FORWARDED:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            finally:
                upstream.close()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/host.html"
    finally:
        server.shutdown()
        server.server_close()
