"""``--http --workers N``, observed from outside: what each worker process imports, and
that uvicorn's supervisor still runs them (health checks, a dead worker replaced, SIGHUP
restarts, SIGTERM stops all).

A worker must not import uvicorn's command line (``uvicorn.main`` with click) nor its
reloaders (``uvicorn.supervisors`` with watchfiles), which uvicorn's own worker start
imports in every process: issue 36's RSS per extra worker. Every process of the server is
given a ``sitecustomize`` that records, through an audit hook, each module it imports in
a file named by its process id.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_client import HttpSession
from tests.support.http_server import free_port, http_command, wait_ready
from tests.support.paths import needs_shared
from tests.support.projects import build_embedded_example
from tests.support.stdio_conversation import STATELESS

pytestmark = needs_shared

PACKAGE = "example_server"
# Imported by uvicorn's own worker start, used by no worker to serve.
NOT_IN_A_WORKER = (
    "click",
    "watchfiles",
    "anyio",
    "uvicorn.main",
    "uvicorn.supervisors",
    "uvicorn._subprocess",
    "multiprocessing.connection",  # the health-check pipe is read without it
    "urllib.request",  # fetches authorization metadata: only with authorization on
    "argparse",  # a worker parses no options
)
RECORD_IMPORTS = """\
import os, sys
_folder = os.environ.get("RECORD_IMPORTS_TO")
if _folder:
    _record = open(os.path.join(_folder, f"{os.getpid()}.txt"), "a", buffering=1)
    def _hook(event, args):
        if event == "import":
            _record.write(args[0] + "\\n")
    sys.addaudithook(_hook)
"""


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("workers"))


@pytest.fixture
def two_workers(example: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    yield from recorded_server(example, tmp_path, "--workers", "2")


@pytest.fixture
def one_worker(example: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    yield from recorded_server(example, tmp_path)


def recorded_server(
    example: Path, tmp_path: Path, *options: str
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``python -m PACKAGE --http OPTIONS``, every process recording its imports."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(RECORD_IMPORTS)
    (tmp_path / "imports").mkdir()
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "RECORD_IMPORTS_TO": str(tmp_path / "imports"),
    }
    port = free_port()
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(
            http_command(PACKAGE, port, *options),
            cwd=example,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_ready(port, process, "/mcp/health")
            yield process, f"http://127.0.0.1:{port}/mcp"
        finally:
            if process.poll() is None:
                # SIGTERM, so the supervisor stops its workers as it does for a user: after
                # a SIGKILL its workers ran on, orphaned, after the test run had ended.
                workers = workers_of(process.pid) if sys.platform == "linux" else set()
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                for pid in workers:  # any still there after a supervisor that did not stop
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)


def imports_by_process(folder: Path) -> dict[int, set[str]]:
    return {int(f.stem): set(f.read_text().split()) for f in folder.glob("*.txt")}


def workers_of(supervisor: int) -> set[int]:
    """The supervisor's children that serve (multiprocessing's resource tracker aside)."""
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
    serving = set()
    for child in map(int, children):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        if b"resource_tracker" not in command:
            serving.add(child)
    return serving


def call_divide(url: str, times: int) -> None:
    client = HttpSession(url, STATELESS)
    for _ in range(times):  # new connections: the kernel spreads them over the workers
        reply = client.call("divide", {"dividend": 6, "divisor": 3})
        assert reply.status == 200, reply
        result = reply.last["result"]
        assert not result.get("isError") and "2" in result["content"][0]["text"], result


def wait_for(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_worker_imports_what_it_serves_with_and_not_uvicorns_command_line(
    two_workers: tuple[subprocess.Popen[bytes], str], tmp_path: Path
) -> None:
    supervisor, url = two_workers
    call_divide(url, 8)
    workers = workers_of(supervisor.pid)
    assert len(workers) == 2
    modules = imports_by_process(tmp_path / "imports")
    assert "uvicorn.supervisors.multiprocess" in modules[supervisor.pid]  # read right
    for worker in workers:
        assert "uvicorn.server" in modules[worker]  # it serves with uvicorn's server
        assert sorted(m for m in NOT_IN_A_WORKER if m in modules[worker]) == [], worker
    assert any("jsonschema_rs" in modules[worker] for worker in workers)  # it answered


def test_one_worker_serves_in_its_own_process_without_uvicorns_command_line(
    one_worker: tuple[subprocess.Popen[bytes], str], tmp_path: Path
) -> None:
    server, url = one_worker
    call_divide(url, 4)
    modules = imports_by_process(tmp_path / "imports")[server.pid]
    assert "uvicorn.server" in modules and "jsonschema_rs" in modules
    # It parsed its options itself (argparse), and imports nothing else of that list.
    assert sorted(m for m in NOT_IN_A_WORKER if m in modules) == ["argparse"]
    # uvicorn's server stops gracefully, then raises the signal it caught again, as its
    # own uvicorn.run does: the process ends by SIGTERM.
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=20) == -signal.SIGTERM


def test_a_port_in_use_stops_the_server_with_uvicorns_start_up_failure(example: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            http_command(PACKAGE, port), cwd=example, capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 3, done.stderr[-2000:]  # uvicorn's STARTUP_FAILURE
    assert "address already in use" in done.stderr.lower(), done.stderr[-2000:]


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_uvicorns_supervisor_still_checks_replaces_restarts_and_stops_its_workers(
    two_workers: tuple[subprocess.Popen[bytes], str],
) -> None:
    supervisor, url = two_workers
    first = workers_of(supervisor.pid)
    assert len(first) == 2
    # Health checks every half second, each answered: nobody is replaced for that (a
    # worker that does not answer within 5 s is killed and replaced).
    time.sleep(6)
    assert workers_of(supervisor.pid) == first
    # A worker that dies is replaced.
    killed = min(first)
    os.kill(killed, signal.SIGKILL)
    assert wait_for(lambda: len(workers_of(supervisor.pid) - {killed}) == 2, 20)
    call_divide(url, 4)
    # SIGHUP: each worker replaced once its replacement answers that it has started.
    before = workers_of(supervisor.pid)
    supervisor.send_signal(signal.SIGHUP)
    assert wait_for(lambda: not workers_of(supervisor.pid) & before, 30), "not restarted"
    assert wait_for(lambda: len(workers_of(supervisor.pid)) == 2, 10)
    call_divide(url, 4)
    # SIGTERM: the workers stop, then the supervisor, gracefully.
    last = workers_of(supervisor.pid)
    supervisor.send_signal(signal.SIGTERM)
    assert supervisor.wait(timeout=20) == 0
    assert all(not Path(f"/proc/{pid}").exists() for pid in last)


def test_uvicorns_package_init_runs_only_when_something_asks_for_more(example: Path) -> None:
    """In a fresh interpreter: with ``serving_modules_only``, uvicorn's serving modules
    import without its command line; ``from uvicorn import Config`` (uvicorn.lifespan.on
    does it) still works without it; any other name (``uvicorn.run``) runs the real
    ``__init__`` then, so code that needs it finds it."""
    check = f"""
import importlib.metadata, sys
from {PACKAGE}._runtime.http.worker_processes import serving_modules_only
serving_modules_only()
import uvicorn.server, uvicorn.lifespan.on
from uvicorn import Config
import uvicorn.config
assert Config is uvicorn.config.Config
assert "uvicorn.main" not in sys.modules and "click" not in sys.modules, sorted(sys.modules)
import uvicorn
assert callable(uvicorn.run) and "uvicorn.main" in sys.modules
assert uvicorn.__version__ == importlib.metadata.version("uvicorn")
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", check],
        cwd=example,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr[-3000:]
