"""Generated servers over HTTP in tests: a project built in a temporary folder, served by
``python -m PACKAGE --http`` (or any command) on a free port of 127.0.0.1, and stopped.

Also a throwaway redis-server (the Debian package) on a free port with a temporary
directory, for the scale-out tests; ``REDIS`` is None where it is not installed.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.support.paths import REPO

CONFORMANCE_PROJECT = REPO / "tests" / "e2e" / "conformance"
START_TIMEOUT_S = 30.0
REDIS = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def build_project(source: Path, destination: Path, package: str) -> Path:
    """Copy a project (pyproject.toml, tools/, and its handlers.py) and build it with
    mcp-codegen in a fresh interpreter; returns the folder holding the package."""
    project = destination / source.name
    shutil.copytree(
        source, project, ignore=shutil.ignore_patterns("expected-failures-*", "handlers.py")
    )
    (project / package).mkdir()
    shutil.copy(source / "handlers.py", project / package / "handlers.py")
    subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "build", "-q", str(project)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return project


def wait_ready(port: int, process: subprocess.Popen[bytes], path: str = "/healthz") -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server did not answer on port {port} within {START_TIMEOUT_S} s")


@contextlib.contextmanager
def serving(
    root: Path, command: Sequence[str], port: int, log: Path, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Run ``command`` in ``root`` until the block ends; yields the MCP endpoint's URL."""
    environment = {**os.environ, **(env or {})}
    with log.open("wb") as output:
        process = subprocess.Popen(
            list(command), cwd=root, stdout=output, stderr=subprocess.STDOUT, env=environment
        )
        try:
            wait_ready(port, process)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def http_command(package: str, port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", package, "--http", "--port", str(port), *extra]


class RedisServer:
    """A private redis-server on 127.0.0.1 (no persistence unless a subclass asks) that a
    test may stop (kill -9) and start again on the same port, as an outage does."""

    # What it keeps on disk: nothing by default; a test that restarts Redis and must find
    # its data again persists every write (appendonly, fsync always).
    persistence: tuple[str, ...] = ("--appendonly", "no")

    def __init__(self, folder: Path) -> None:
        assert REDIS is not None
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)

    def start(self) -> None:
        assert REDIS is not None and self.process is None
        self.process = subprocess.Popen(
            [
                REDIS, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.folder),
                "--save", "", *self.persistence, "--protected-mode", "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as probe:
                    probe.sendall(b"PING\r\n")
                    if probe.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            # Not listening yet, or still loading its data (-LOADING): wait, within bounds.
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@contextlib.contextmanager
def restartable_redis(folder: Path) -> Iterator[RedisServer]:
    server = RedisServer(folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A private redis-server on 127.0.0.1 (no persistence); yields its URL."""
    with restartable_redis(folder) as server:
        yield server.url


@contextlib.contextmanager
def servers_on_one_redis(
    root: Path, package: str, folder: Path, env: dict[str, str] | None = None
) -> Iterator[tuple[str, list[str]]]:
    """A private redis-server and two server processes, a and b, with it as their store
    (logs folder/a.log and folder/b.log): one deployment of two workers behind a balancer.
    Yields the store's URL and the two MCP endpoints' URLs."""
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(folder / "redis"))
        urls = []
        for name in ("a", "b"):
            port = free_port()
            command = http_command(package, port, "--store", store)
            log = folder / f"{name}.log"
            urls.append(stack.enter_context(serving(root, command, port, log, env=env)))
        yield store, urls
