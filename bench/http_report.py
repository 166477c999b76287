"""bench_http.py's tables, ratios, targets and images: every cell the median of all its
runs (rounds x runs per round) with min..max, every response counted (non-2xx, socket
errors, and 2xx bodies that were a JSON-RPC error or not the tool's answer), what each
server's figure includes, the commit and the machine."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from plots import Figures
from provenance import spread, stamp

SESSION, STATELESS = "2025-11-25", "2026-07-28"
Results = Mapping[str, Mapping[Any, Sequence[Any]]]

INCLUDES = {
    "ours": "python -m PACKAGE --http: uvicorn (httptools, uvloop) and our ASGI app; "
    "validation, sessions in the memory store",
    "ours, 2 workers": "as ours, a supervisor and 2 uvicorn worker processes (CPU: all)",
    "ours, granian": "the same app (PACKAGE.asgi:app) under granian 1 worker, uvloop, HTTP/1",
    "SDK stateful": "the official SDK's low-level Server.streamable_http_app(), uvicorn, "
    "JSON responses, jsonschema-rs validation in the handler",
    "SDK stateless": "the same, stateless_http=True (no session)",
    "FastMCP": "FastMCP.http_app(), uvicorn, JSON responses, pydantic validation",
    "floor: uvicorn hello": "uvicorn (httptools, uvloop) and an ASGI app that reads the "
    "body and answers fixed JSON: no parsing, no MCP",
    "floor: granian hello": "the same app under granian",
}


def cell(runs: Sequence[Mapping[str, float]], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def floors(results: Results) -> dict[str, float]:
    """Requests/s at concurrency 16 of each bare server measured (median)."""
    return {
        name: cell(figures[(STATELESS, 16)], "rps")
        for name, figures in results.items()
        if name.startswith("floor") and (STATELESS, 16) in figures
    }


def print_tables(results: Results, rounds: int, runs: int, seconds: int) -> None:
    print(f"\n{stamp()}")
    print(
        f"load generator: autocannon 8.0.0, keep-alive, one tools/call repeated; {rounds} "
        f"rounds (servers in rotated order, each started afresh) x {runs} run(s) of {seconds} s "
        "a cell; median (min..max) of all runs"
    )
    print(
        f"{'server':22} {'form':10} {'conc':>4} {'req/s':>26} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'server CPU us/req':>24} {'gen us/req':>10}  checked responses"
    )
    for name, figures in results.items():
        for key, cell_runs in figures.items():
            if key == "rss":
                continue
            era, connections = key
            bad = sum(run["bad"] for run in cell_runs)
            wrong = sum(run["rpc_errors"] for run in cell_runs)
            checked = sum(run["checked"] for run in cell_runs)
            failures = f"{checked:,} 2xx, {wrong} JSON-RPC errors/wrong, {bad} non-2xx/errors"
            if bad or wrong:
                failures += "  <- FAILURES"
            print(
                f"{name:22} {era:10} {connections:>4} "
                f"{spread([r['rps'] for r in cell_runs]):>26} "
                f"{cell(cell_runs, 'p50'):>7.1f} {cell(cell_runs, 'p99'):>7.1f} "
                f"{spread([r['cpu_us'] for r in cell_runs]):>24} "
                f"{cell(cell_runs, 'generator_us'):>10.0f}  {failures}"
            )
    print("\nidle RSS after warm-up, MiB, median (min..max) of the rounds")
    for name, figures in results.items():
        print(f"  {name:22} {spread(figures['rss'], '{:.1f}')}")
    print("\nwhat each figure includes")
    for name in results:
        print(f"  {name:22} {INCLUDES.get(name, '')}")
    print_ratios(results)


def print_ratios(results: Results) -> None:
    def at(name: str, era: str, connections: int = 16) -> Sequence[Mapping[str, float]]:
        return results.get(name, {}).get((era, connections), [])

    print("\nratios (medians, concurrency 16)")
    ours, sdk = at("ours", SESSION), at("SDK stateful", SESSION)
    if ours and sdk:
        ours_both = cell(ours, "cpu_us") + cell(ours, "generator_us")
        sdk_both = cell(sdk, "cpu_us") + cell(sdk, "generator_us")
        print(
            f"  ours / SDK stateful ({SESSION} session): "
            f"{cell(ours, 'rps') / cell(sdk, 'rps'):.1f}x requests/s, "
            f"{cell(sdk, 'cpu_us') / cell(ours, 'cpu_us'):.1f}x by server CPU a request; server "
            f"and load generator together {ours_both:.0f} against {sdk_both:.0f} us "
            f"({sdk_both / ours_both:.1f}x: the most a requests/s ratio can show on shared cores)"
        )
    ours, sdk = at("ours", STATELESS), at("SDK stateless", STATELESS)
    if ours and sdk:
        print(
            f"  ours / SDK stateless ({STATELESS}): {cell(ours, 'rps') / cell(sdk, 'rps'):.1f}x "
            "requests/s"
        )
    bare = floors(results)
    if not bare:
        return
    fastest = max(bare, key=bare.__getitem__)
    print(
        "  the floor is the fastest bare server measured: "
        + ", ".join(f"{name} {rate:,.0f} req/s" for name, rate in bare.items())
        + f" -> {fastest}"
    )
    for server, floor in (
        ("ours", "floor: uvicorn hello"),
        ("ours, granian", "floor: granian hello"),
    ):
        floor_runs = at(floor, STATELESS)
        for era in (SESSION, STATELESS):
            runs = at(server, era)
            if not runs or not floor_runs:
                continue
            share = cell(runs, "rps") / cell(floor_runs, "rps")
            cpu = cell(runs, "cpu_us") / cell(floor_runs, "cpu_us")
            met = era == SESSION and share >= 0.7 and cpu <= 1.5
            mark = f"[{'met' if met else 'MISSED'}] " if era == SESSION else ""
            print(
                f"  {mark}{server} ({era}) / {floor}: {share:.0%} of its requests/s "
                f"(target >= 70%), {cell(runs, 'cpu_us'):.0f} against "
                f"{cell(floor_runs, 'cpu_us'):.0f} us server CPU a request = {cpu:.2f}x "
                "(target <= 1.5x)"
            )
    fastest_runs = at(fastest, STATELESS)
    for server in ("ours", "ours, granian"):
        runs = at(server, SESSION)
        if runs and fastest_runs:
            print(
                f"  {server} ({SESSION} session) / the floor ({fastest}): "
                f"{cell(runs, 'rps') / cell(fastest_runs, 'rps'):.0%} of its requests/s"
            )


def plot_http(folder: Path, results: Results, *, quick: bool) -> None:
    figures = Figures(folder, "bench_http", quick)
    for era in (SESSION, STATELESS):
        cells = {
            name: figures_of[(era, 16)]
            for name, figures_of in results.items()
            if (era, 16) in figures_of
        }
        if not cells:
            continue
        slug = "session" if era == SESSION else "stateless"
        floor_note = "floors: bare ASGI 'hello' apps (a ping, form-independent)"
        figures.bars(
            f"http-{slug}-rps", f"Streamable HTTP, {era}, concurrency 16: requests/s",
            {name: [r["rps"] for r in runs] for name, runs in cells.items()}, "requests/s",
            note=floor_note, highlight=[n for n in cells if n.startswith("ours")],
        )  # fmt: skip
        figures.bars(
            f"http-{slug}-cpu", f"Streamable HTTP, {era}, concurrency 16: server CPU a request",
            {name: [r["cpu_us"] for r in runs] for name, runs in cells.items()}, "microseconds",
            note=floor_note, highlight=[n for n in cells if n.startswith("ours")],
        )  # fmt: skip
    figures.bars(
        "http-rss", "Streamable HTTP: idle RSS after warm-up",
        {name: list(f["rss"]) for name, f in results.items()}, "MiB",
        highlight=[n for n in results if n.startswith("ours")],
    )  # fmt: skip
    figures.write_fragment()
