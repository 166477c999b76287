#!/usr/bin/env python3
"""The generated server over Streamable HTTP beside its peers, in one run, on this machine.

    .venv/bin/python bench/bench_http.py [--rounds 3] [--runs 1] [--seconds 5] [--plots DIR]
        [--only NAME ...] [--no-sweep] [--quick]

Every server serves the same 100 tools as bench/bench_server.py (``get_weather_N``: a
required string ``location``, an enum ``units`` with a default) and answers the same
tools/call, driven by the same load generator: autocannon 8.0.0 (bench/load.cjs, Node 22,
installed by tests/support/node.py), keep-alive connections, for a fixed time at concurrency
1, 16 and 64. Peers, each under uvicorn (one worker) with JSON responses, their fastest mode:

* ours           ``python -m ours_pkg --http`` (1 and 2 workers)
* SDK stateful   the official SDK's low-level ``Server.streamable_http_app()``
* SDK stateless  the same with ``stateless_http=True``
* FastMCP        ``FastMCP.http_app()``

* floor          uvicorn's bare "hello" ASGI app (reads the body, answers a fixed JSON
                 result): what any server on uvicorn pays per request, as the bare loop
                 is for stdio
* ours, granian and floor: granian hello: the same two under granian (one worker, uvloop,
                 HTTP/1): the floor of the table is the fastest bare server measured

Each round starts every server afresh, in an order rotated round by round (so a change of
the machine's load weighs on each alike), and runs each cell (form, concurrency) ``--runs``
times: every cell is the median of all its runs, with their min..max.
Two request forms: a 2025-11-25 session (initialize first; ``Mcp-Session-Id`` on every
call; the stateless SDK app needs no session) and 2026-07-28 (``_meta`` envelope and
``Mcp-Method``/``Mcp-Name`` headers, no session). Reported: requests/s, p50 and p99
latency (ms), the server's CPU per request (all threads of the server and its worker
processes, from /proc/PID/task/*/schedstat: a loaded machine's waiting is not counted),
the load generator's CPU per request (what its process used, getrusage of children: it
shares the cores, so requests/s ratios are bounded by server + generator CPU a request),
idle RSS after warm-up. Every response is checked (bench/load.cjs): non-2xx and socket
errors, and 2xx bodies that are a JSON-RPC error, an ``isError`` result or not the tool's
answer, each counted and printed beside the cell.
Then a workers sweep of ours (1, 2, 4, 8 workers, 2026-07-28 at concurrency 64): the RSS
each extra worker adds (a sum of RSS counts shared pages in every process) beside its PSS
(/proc/PID/smaps_rollup: each shared page counted once), and requests/s only where the
machine has a core for each worker besides the load generator's (else it says so and
prints no figure: scaling cannot show).
Figures vary with machine load: read the ratios and the CPU per request of one run.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from http_report import plot_http, print_tables  # noqa: E402
from peers import ARGUMENTS, FASTMCP, HELLO, SCHEMA, SDK, TOOLS, generate_ours  # noqa: E402
from plots import DEFAULT_DIR  # noqa: E402
from provenance import interleaved, stamp  # noqa: E402

from tests.support.http_server import free_port  # noqa: E402
from tests.support.node import node_toolchain  # noqa: E402

STATELESS = "2026-07-28"
SESSION = "2025-11-25"
CONCURRENCY = (1, 16, 64)
TOOL = "get_weather_42"

# The SDK and FastMCP peers of peers.py, served over HTTP instead of stdio.
SDK_HTTP = (
    SDK.split("\n\nasync def main():")[0]
    + """

app = server.streamable_http_app(json_response=True, stateless_http={stateless})
"""
)
FASTMCP_HTTP = (
    FASTMCP.split('\n\nif __name__ == "__main__":')[0]
    + """

app = mcp.http_app(json_response=True)
"""
)


WORKERS = (1, 2, 4, 8)  # the sweep


def write_servers(root: Path) -> dict[str, list[str]]:
    generate_ours(root)
    (root / "peer_sdk_stateful.py").write_text(
        SDK_HTTP.format(schema=SCHEMA, tools=TOOLS, stateless=False)
    )
    (root / "peer_sdk_stateless.py").write_text(
        SDK_HTTP.format(schema=SCHEMA, tools=TOOLS, stateless=True)
    )
    (root / "peer_fastmcp_http.py").write_text(FASTMCP_HTTP.format(tools=TOOLS))
    (root / "peer_hello.py").write_text(HELLO)
    uvicorn = [sys.executable, "-m", "uvicorn", "--log-level", "warning", "--no-access-log"]
    granian = [
        str(Path(sys.executable).parent / "granian"), "--interface", "asgi", "--loop", "uvloop",
        "--http", "1", "--no-ws", "--log-level", "warning", "--host", "127.0.0.1",
    ]  # fmt: skip
    return {
        "ours": [sys.executable, "-m", "ours_pkg", "--http"],
        "ours, 2 workers": [sys.executable, "-m", "ours_pkg", "--http", "--workers", "2"],
        "SDK stateful": [*uvicorn, "peer_sdk_stateful:app"],
        "SDK stateless": [*uvicorn, "peer_sdk_stateless:app"],
        "FastMCP": [*uvicorn, "peer_fastmcp_http:app"],
        "floor: uvicorn hello": [*uvicorn, "peer_hello:app"],
        # The same two under granian (Rust HTTP, one worker): a faster floor, if it is one.
        "ours, granian": [*granian, "ours_pkg.asgi:app"],
        "floor: granian hello": [*granian, "peer_hello:app"],
    }


def _post(port: int, body: dict[str, Any], headers: dict[str, str]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    wanted = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    connection.request("POST", "/mcp", body=json.dumps(body), headers={**wanted, **headers})
    response = connection.getresponse()
    data = response.read()
    if response.getheader("content-type", "").startswith("text/event-stream"):
        data = (
            b"".join(line[5:].strip() for line in data.splitlines() if line.startswith(b"data:"))
            or b"{}"
        )
    response.read_body = data  # type: ignore[attr-defined]
    return response


def request_form(port: int, era: str, stateless_app: bool) -> tuple[dict[str, str], bytes]:
    """Headers and body of the measured tools/call (a session opened first if needed)."""
    params: dict[str, Any] = {"name": TOOL, "arguments": ARGUMENTS}
    if era == STATELESS:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        }
        headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/call", "Mcp-Name": TOOL}
    else:
        headers = {"MCP-Protocol-Version": SESSION}
        if not stateless_app:
            initialize = {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": SESSION,
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            }
            response = _post(port, initialize, {})
            headers["Mcp-Session-Id"] = response.getheader("mcp-session-id") or ""
            _post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    check = _post(port, body, headers)
    answer = json.loads(check.read_body)  # type: ignore[attr-defined]
    text = answer["result"]["content"][0]["text"]
    assert check.status == 200 and text == "Oslo: 21 degrees fahrenheit", answer
    # Each request its own id (load.cjs numbers them): one session's requests in flight
    # at once must not share one.
    body["id"] = "__ID__"
    return headers, json.dumps(body).encode()


def tree_pids(pid: int) -> list[int]:
    """The server process and its children (uvicorn's worker processes)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [pid, *(int(p) for p in children.read_text().split())]
    except OSError:
        return [pid]


def cpu_seconds(pid: int) -> float:
    """CPU time of every thread of the server and its workers so far (schedstat: ns)."""
    total = 0
    for one in tree_pids(pid):
        try:
            tasks = os.listdir(f"/proc/{one}/task")
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError, ValueError, IndexError):  # a thread that ended
                total += int(Path(f"/proc/{one}/task/{task}/schedstat").read_text().split()[0])
    return total / 1e9


def load(
    port: int,
    headers: dict[str, str],
    body: bytes,
    connections: int,
    seconds: int,
    server_pid: int | None = None,
    expect: str = "",
) -> dict[str, float]:
    toolchain = node_toolchain()
    config = {
        "url": f"http://127.0.0.1:{port}/mcp",
        "headers": {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        "body": body.decode(),
        "connections": connections,
        "seconds": seconds,
        "expect": expect,
    }
    environment = {**toolchain.environment(), "NODE_PATH": str(toolchain.node_modules)}
    cpu = cpu_seconds(server_pid) if server_pid is not None else 0.0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run(
        [str(toolchain.node), str(REPO / "bench" / "load.cjs"), json.dumps(config)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=seconds + 60,
    )
    used = cpu_seconds(server_pid) - cpu if server_pid is not None else float("nan")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    generator = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    report = json.loads(completed.stdout)
    total = report["requests"]["total"] or 1
    return {
        "cpu_us": used / total * 1e6,
        "generator_us": generator / total * 1e6,
        "rps": report["requests"]["average"],
        "p50": report["latency"]["p50"],
        "p99": report["latency"]["p99"],
        "bad": report["non2xx"] + report["errors"] + report["timeouts"],
        "rpc_errors": report["rpcErrors"],  # 2xx whose body was not the tool's answer
        "checked": report["checked"],
    }


def rss_mib(pid: int) -> float:
    """Resident memory of the server process and its children (uvicorn workers)."""
    total = 0
    for one in tree_pids(pid):
        for line in Path(f"/proc/{one}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def pss_mib(pid: int) -> float:
    """Proportional set size of the server process and its children: each shared page
    (the interpreter, libraries, what the workers inherited) counted once over the
    processes sharing it, where a sum of RSS counts it in every one of them."""
    total = 0
    for one in tree_pids(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{one}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
    return total / 1024


def _wait_listening(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def is_floor(name: str) -> bool:
    return name.startswith("floor")


def measure(
    name: str, command: list[str], root: Path, seconds: int, runs: int
) -> dict[Any, list[Any]]:
    """One round of one server: started afresh, warmed up, then ``runs`` load runs per
    cell (request form, concurrency); the idle RSS after warm-up."""
    port = free_port()
    environment = {**os.environ, "PYTHONPATH": str(root)}
    process = subprocess.Popen(
        [*command, "--port", str(port)], cwd=root, env=environment,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    figures: dict[Any, list[Any]] = {}
    try:
        _wait_listening(port)
        time.sleep(1.0)
        stateless_app = name == "SDK stateless" or is_floor(name)
        eras = [SESSION, STATELESS]
        if name == "ours, 2 workers":
            eras = [STATELESS]  # sessions across workers need the Redis store
        if is_floor(name):
            eras = [STATELESS]  # it answers any POST alike
        for era in eras:
            if is_floor(name):
                headers, body = {}, b'{"jsonrpc":"2.0","id":"__ID__","method":"ping"}'
                expect = "hello"
            else:
                headers, body = request_form(port, era, stateless_app)
                expect = "21 degrees"
            load(port, headers, body, 4, 1)  # warm-up
            if "rss" not in figures:
                figures["rss"] = [rss_mib(process.pid)]
            levels = (64,) if name == "ours, 2 workers" else CONCURRENCY
            for connections in levels:
                figures[(era, connections)] = [
                    load(port, headers, body, connections, seconds, process.pid, expect)
                    for _ in range(runs)
                ]
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # graceful shutdown waits for idle sessions
            process.kill()
            process.wait()
    return figures


def workers_sweep(root: Path, seconds: int) -> None:
    """Ours with 1, 2, 4, 8 workers (2026-07-28, concurrency 64): the RSS each extra
    worker adds, and requests/s where the machine can show scaling."""
    cores = os.cpu_count() or 1
    print(f"\n{stamp()}")
    print(f"workers sweep, ours, {STATELESS} at concurrency 64 ({cores} cores here)")
    print(
        f"{'workers':>7} {'RSS MiB, all':>13} {'per extra':>10} {'PSS MiB, all':>13} "
        f"{'per extra':>10} {'req/s':>9} {'CPU us/req':>10}"
    )
    before: tuple[int, float, float] | None = None  # (workers, RSS, PSS) of the last row
    for workers in WORKERS:
        port = free_port()
        command = [sys.executable, "-m", "ours_pkg", "--http", "--workers", str(workers)]
        process = subprocess.Popen(
            [*command, "--port", str(port)], cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            _wait_listening(port)
            headers, body = request_form(port, STATELESS, False)
            for _ in range(2 * workers):  # every worker answers (and imports) once or more
                load(port, headers, body, workers, 1)
            time.sleep(1.0)
            rss, pss = rss_mib(process.pid), pss_mib(process.pid)
            # One worker serves in the supervisor's own process; from two on, a supervisor
            # starts them, so what a worker adds is read between multi-worker rows.
            extra = extra_pss = ""
            if before is not None:
                extra = f"{(rss - before[1]) / (workers - before[0]):.1f}"
                extra_pss = f"{(pss - before[2]) / (workers - before[0]):.1f}"
            if workers > 1:
                before = (workers, rss, pss)
            # Scaling shows only with a core for each worker and one for the load generator.
            if cores >= workers + 1:
                figure = load(port, headers, body, 64, seconds, process.pid)
                rate, cpu = f"{figure['rps']:.0f}", f"{figure['cpu_us']:.0f}"
            else:
                rate, cpu = "-", "-"
            print(
                f"{workers:>7} {rss:>13.1f} {extra:>10} {pss:>13.1f} {extra_pss:>10} "
                f"{rate:>9} {cpu:>10}"
            )
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    if cores < max(WORKERS) + 1:
        print(
            f"requests/s only where {cores} cores hold the workers and the load generator: "
            f"this machine cannot show scaling beyond {max(cores - 1, 1)} worker(s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 1 round, 1 s per run, no sweep"
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--runs", type=int, default=1, help="load runs per cell and round")
    parser.add_argument("--seconds", type=int, default=5, help="seconds per load run")
    parser.add_argument("--only", action="append", help="measure only these servers")
    parser.add_argument("--no-sweep", action="store_true", help="skip the workers sweep")
    parser.add_argument(
        "--plots", type=Path, nargs="?", const=DEFAULT_DIR, metavar="DIR",
        help="write the figures as SVG images and a markdown fragment into DIR "
        "(default docs/benchmarks)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.runs, args.seconds, args.no_sweep = 2, 1, 1, True
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        servers = {
            name: command
            for name, command in write_servers(root).items()
            if not args.only or name in args.only
        }
        rounds = interleaved(
            args.rounds,
            {
                name: (lambda n=name, c=command: measure(n, c, root, args.seconds, args.runs))
                for name, command in servers.items()
            },
        )
        # Each cell: every run of every round.
        results: dict[str, dict[Any, list[Any]]] = {}
        for name, per_round in rounds.items():
            merged: dict[Any, list[Any]] = {}
            for figures in per_round:
                for key, values in figures.items():
                    merged.setdefault(key, []).extend(values)
            results[name] = merged
        print_tables(results, args.rounds, args.runs, args.seconds)
        if args.plots:
            plot_http(args.plots, results, quick=args.quick)
        if not args.no_sweep:
            workers_sweep(root, args.seconds)


if __name__ == "__main__":
    main()
