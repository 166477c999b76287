"""The bench scripts' measuring machinery, cheaply (no timing is asserted): peers run in
rotated order, every stdio and HTTP reply is checked (a JSON-RPC error counts as a
failure), the like-for-like build reference is DMCG plus one ruff pass, and the images name
their commit and say when they come from a quick smoke run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.http_server import free_port
from tests.support.paths import REPO

sys.path.insert(0, str(REPO / "bench"))

import bench_http
import build_reference
import plots
import provenance
from bench_project import small
from bench_server import answered, stdio_figures
from peers import BARE, HELLO


def test_peers_run_in_an_order_rotated_round_by_round() -> None:
    order: list[str] = []

    def action(name: str) -> object:
        return lambda: order.append(name) or len(order)

    samples = provenance.interleaved(3, {n: action(n) for n in "abc"}, progress=False)
    assert order == list("abcbcacab")
    assert samples == {"a": [1, 6, 8], "b": [2, 4, 9], "c": [3, 5, 7]}
    assert provenance.spread([3.0, 1.0, 2.0], "{:.1f}", " s") == "2.0 s (1.0..3.0)"


def test_a_json_rpc_error_or_an_is_error_result_is_not_an_answer() -> None:
    good = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"text": "Oslo: 21 degrees"}]}}
    assert answered(good)
    assert not answered({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x"}})
    assert not answered({**good, "result": {**good["result"], "isError": True}})
    assert not answered({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"text": "no"}]}})


# The bare loop, except that tools/call answers a JSON-RPC error.
FAILING = BARE.replace(
    'if method == "tools/call":',
    'if method == "tools/call":\n'
    '        return orjson.dumps({"jsonrpc": "2.0", "id": message["id"], '
    '"error": {"code": -32602, "message": "no"}})\n    if False:',
)


@pytest.mark.parametrize(("peer", "failing"), [(BARE, False), (FAILING, True)])
def test_every_stdio_reply_is_checked(tmp_path: Path, peer: str, failing: bool) -> None:
    (tmp_path / "peer.py").write_text(peer)
    figures = stdio_figures([sys.executable, str(tmp_path / "peer.py")], tmp_path, 20, 50)
    assert figures["replies"] == 70
    assert figures["failures"] == (70 if failing else 0)


ERROR_BODY = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"overloaded"}}'


@pytest.mark.parametrize(
    ("body", "expect", "wrong"),
    [(None, "hello", False), (None, "21 degrees", True), (ERROR_BODY, "", True)],
)
def test_http_replies_under_load_are_checked(
    tmp_path: Path, body: bytes | None, expect: str, wrong: bool
) -> None:
    app = HELLO if body is None else re.sub(r"(?m)^BODY = .*$", f"BODY = {body!r}", HELLO)
    assert ("overloaded" in app) == (body is not None)
    (tmp_path / "peer_app.py").write_text(app)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--log-level", "warning", "--port", str(port),
         "peer_app:app"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        bench_http._wait_listening(port)
        ping = b'{"jsonrpc":"2.0","id":"__ID__","method":"ping"}'
        figures = bench_http.load(port, {}, ping, 2, 1, server.pid, expect)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert figures["checked"] > 0 and figures["bad"] == 0
    assert figures["rpc_errors"] == (figures["checked"] if wrong else 0)


def test_the_like_for_like_reference_is_dmcg_without_formatters_then_one_ruff_pass() -> None:
    from mcp_schemagen.render.formatting import format_modules

    modules = build_reference.dmcg([small(0)], like_for_like=True)
    assert len(modules) == 1 and "class Model(TypedDict" in modules[0]
    assert format_modules(modules) == modules  # ruff's output already


@pytest.mark.parametrize("quick", [True, False])
def test_images_name_their_commit_and_quick_runs_say_so(tmp_path: Path, quick: bool) -> None:
    folder = tmp_path / "benchmarks"
    figures = plots.Figures(folder, "bench_x", quick)
    figures.bars("calls", "calls/s", {"ours": [3.0, 1.0, 2.0], "bare": [5.0, 4.0, 6.0]}, "calls/s")
    fragment = figures.write_fragment()
    image = folder / f"{'quick-' if quick else ''}calls.svg"
    text = image.read_text()
    assert provenance.commit() in text and provenance.cpu_model() in text
    assert (plots.QUICK_NOTE in text) == quick
    assert fragment.name == f"{'quick-' if quick else ''}bench_x.snippet"
    # The fragment's links are relative to docs/benchmarks.md, the page that includes it.
    links = [line.split("(")[1].rstrip(")\n") for line in fragment.open() if "![" in line]
    assert links and all((tmp_path / link).is_file() for link in links)
