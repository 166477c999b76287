"""`mcp-codegen import openapi` and the build on the largest public documents (GitHub's
REST description, Stripe's) and on a generated one of N operations (every schema reaching
50 shared components), beside FastMCP's `from_openapi` start-up on the same document: its
start-up is paid by every server start, ours once at import and build. Each figure is
the median and min..max over interleaved rounds, with the peak RSS of the process.

    .venv/bin/python bench/bench_openapi.py [--documents github,stripe,synthetic]
        [--operations 1000] [--rounds 3] [--build] [--build-rounds 1] [--select ARGS]

GitHub's document is fetched once (pinned, tests/support/openapi_documents.py); Stripe's
is vendored. --build also builds each project, cold (an empty types cache; minutes for
the whole documents), and times the generated server from start to its last tools/list
page. --select passes a selection to every import (`--documents github --select "--tags
issues"`) for a quick smoke run; FastMCP is always given the whole document. Wall-clock on a noisy machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHARED_SPECS = HERE.parent.parent / "shared" / "specs"
sys.path.insert(0, str(HERE.parent))

from provenance import interleaved, spread, stamp  # noqa: E402

from tests.support.openapi_documents import github_document, stripe_document  # noqa: E402


def document(operations: int) -> dict[str, Any]:
    schemas = {
        f"S{i}": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "next": {"$ref": f"#/components/schemas/S{(i + 1) % 50}"},
                "name": {"type": "string", "nullable": True},
            },
        }
        for i in range(50)
    }
    paths: dict[str, Any] = {}
    for i in range(operations // 2):
        schema = {"$ref": f"#/components/schemas/S{i % 50}"}
        paths[f"/things{i}/{{id}}"] = {
            "get": {
                "operationId": f"get{i}",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": {
                    "200": {"description": "", "content": {"application/json": {"schema": schema}}}
                },
            },
            "post": {
                "operationId": f"post{i}",
                "requestBody": {"content": {"application/json": {"schema": schema}}},
                "responses": {"204": {"description": ""}},
            },
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Bench", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }


# Each measured process prints "SECONDS PEAK_KB" last on stdout: its own VmHWM, not
# getrusage's ru_maxrss, which Linux carries across exec from the process that started it.
_PEAK_KB = (
    "next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:'))"
)
MEASURED_CLI = """
import sys, time
start = time.perf_counter()
from mcp_schemagen.cli import main
code = main(sys.argv[1:])
print(time.perf_counter() - start, PEAK)
sys.exit(code)
""".replace("PEAK", _PEAK_KB)

FASTMCP = """
import json, sys, time, asyncio
start = time.perf_counter()
import httpx2
from fastmcp import FastMCP
spec = json.load(open(sys.argv[1]))
server = FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url="http://127.0.0.1:9"))
tools = asyncio.run(server.list_tools())
print(len(tools), file=sys.stderr)
print(time.perf_counter() - start, PEAK)
""".replace("PEAK", _PEAK_KB)

LIST = """
import json, subprocess, sys, time
start = time.perf_counter()
server = subprocess.Popen([sys.executable, "-m", "big"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def ask(message):
    server.stdin.write((json.dumps(message) + "\\n").encode()); server.stdin.flush()
    return json.loads(server.stdout.readline()) if "id" in message else None
ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
     "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
count, cursor, number = 0, None, 1
while True:
    page = ask({"jsonrpc": "2.0", "id": number, "method": "tools/list",
                "params": {"cursor": cursor} if cursor else {}})["result"]
    count, cursor, number = count + len(page["tools"]), page.get("nextCursor"), number + 1
    if not cursor:
        break
print(count, time.perf_counter() - start)
server.stdin.close(); server.wait()
"""


Sample = tuple[float, float]  # seconds, peak MB


def measured(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> Sample:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(
            f"{shlex.join(command[:1] + command[3:])} failed:\n{done.stderr[-2000:]}"
        )
    seconds, peak = done.stdout.split()[-2:]
    return float(seconds), int(peak) / 1024


def project(root: Path) -> Path:
    (root / "tools").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "b"\nversion = "0"\n\n[tool.mcp-codegen]\npackage = "big"\n'
        'revisions = ["2025-11-25"]\n',
        encoding="utf-8",
    )
    return root


def documents(names: list[str], operations: int, folder: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for name in names:
        if name == "github":
            found["GitHub REST (@octokit/openapi 23.0.2)"] = github_document()
        elif name == "stripe":
            found["Stripe (stripe/openapi @ e0123a38)"] = stripe_document()
        elif name == "synthetic":
            spec = folder / "synthetic.json"
            spec.write_text(json.dumps(document(operations)), encoding="utf-8")
            found[f"synthetic, {operations} operations"] = spec
        else:
            raise SystemExit(f"unknown document {name!r}: github, stripe or synthetic")
    return found


def bench_document(label: str, spec: Path, options: argparse.Namespace, folder: Path) -> None:
    python = sys.executable
    selection = shlex.split(options.select or "")
    last: dict[str, Path] = {}

    def import_once() -> Sample:
        root = project(Path(tempfile.mkdtemp(prefix="import-", dir=folder)))
        last["root"] = root
        command = [python, "-c", MEASURED_CLI, "import", "openapi", "-q", str(spec), *selection]
        return measured(command, root)

    def fastmcp_once() -> Sample:
        return measured([python, "-c", FASTMCP, str(spec)], folder)

    actions: dict[str, Callable[[], Sample]] = {"import": import_once, "fastmcp": fastmcp_once}
    samples = interleaved(options.rounds, actions)
    root = last["root"]
    files = list((root / "tools").glob("*.json"))
    size = sum(path.stat().st_size for path in files) / 1e6
    print(f"\n{label}: {len(files)} tools, {size:.1f} MB of tool files")
    row("mcp-codegen import", samples["import"])
    row("FastMCP from_openapi start-up (every start)", samples["fastmcp"])
    if not options.build:
        return
    builds: list[Sample] = []
    for index in range(options.build_rounds):
        cold = tempfile.mkdtemp(prefix=f"cache-{index}-", dir=folder)  # an empty types cache
        env = dict(os.environ, MCP_CODEGEN_CACHE_DIR=cold)
        builds.append(measured([python, "-c", MEASURED_CLI, "build", "-q"], root, env))
    row("mcp-codegen build (cold types cache)", builds)
    listed: list[float] = []
    for _ in range(options.rounds):
        done = subprocess.run(
            [python, "-c", LIST], cwd=root, capture_output=True, text=True, check=True
        )
        listed.append(float(done.stdout.split()[1]))
    print(f"  generated server, start to last tools/list page: {spread(listed, '{:.2f}', ' s')}")


def row(name: str, samples: list[Sample]) -> None:
    seconds = [s for s, _ in samples]
    peaks = [p for _, p in samples]
    print(f"  {name}: {spread(seconds, '{:.1f}', ' s')}, peak RSS {spread(peaks, '{:.0f}', ' MB')}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", default="github,stripe,synthetic")
    parser.add_argument("--operations", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--build-rounds", type=int, default=1)
    parser.add_argument("--select", help="import options choosing operations, quoted")
    options = parser.parse_args()
    if "MCP_CODEGEN_SPEC_MIRROR" not in os.environ and SHARED_SPECS.is_dir():
        os.environ["MCP_CODEGEN_SPEC_MIRROR"] = str(SHARED_SPECS)  # a cold cache has none
    print(stamp())
    with tempfile.TemporaryDirectory(prefix="bench-openapi-") as name:
        folder = Path(name)
        for label, spec in documents(
            options.documents.split(","), options.operations, folder
        ).items():
            bench_document(label, spec, options, folder)


if __name__ == "__main__":
    main()
