"""Settings of the HTTP transport, from the command line or the environment.

``python -m PACKAGE --http`` puts its options into the environment (``MCP_HTTP_*``,
``MCP_STORE``) before uvicorn starts, so every worker process, and any other ASGI
server importing ``PACKAGE.asgi:app``, reads the same settings with
``HttpSettings.from_environment()``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

# Host names a server bound to the loopback interface answers by default: a browser tricked
# by DNS rebinding sends the attacker's host name, which is not among them.
LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")

ENV_PATH = "MCP_HTTP_PATH"
ENV_ALLOWED_HOSTS = "MCP_HTTP_ALLOWED_HOSTS"
ENV_ALLOWED_ORIGINS = "MCP_HTTP_ALLOWED_ORIGINS"
ENV_MAX_BODY = "MCP_HTTP_MAX_BODY_BYTES"
ENV_STORE = "MCP_STORE"
ENV_SESSION_TTL = "MCP_SESSION_TTL_SECONDS"
ENV_RETRY_MS = "MCP_HTTP_SSE_RETRY_MS"
ENV_MAX_INFLIGHT = "MCP_MAX_CONCURRENT_REQUESTS"  # the same variable as stdio's bound
ENV_BODY_TIMEOUT = "MCP_HTTP_BODY_TIMEOUT_SECONDS"
ENV_HEADER_TIMEOUT = "MCP_HTTP_HEADER_TIMEOUT_SECONDS"
ENV_ACCESS_LOG = "MCP_HTTP_ACCESS_LOG"
ENV_TASK_ENGINE = "MCP_TASK_ENGINE"  # tasks/engine.py
DEFAULT_MAX_INFLIGHT = 4096


@dataclass(frozen=True)
class HttpSettings:
    """``allowed_hosts``: Host header values (host, or host:port) accepted; ``"*"`` any.
    ``allowed_origins``: Origin values accepted besides loopback origins; ``"*"`` any.
    Behind a reverse proxy, list the public host name (and origin) the proxy forwards."""

    path: str = "/mcp"
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    allowed_origins: tuple[str, ...] = ()
    max_body_bytes: int = 4 * 1024 * 1024
    store: str | None = None  # None: in-process; redis://host:port/db: shared
    session_ttl_seconds: float = 3600.0
    event_ttl_seconds: float = 300.0
    sse_retry_ms: int = 1000  # how soon a client reconnects to a closed stream
    resume_wait_seconds: float = 30.0  # how long a resumed stream waits for new events
    extra_health_paths: tuple[str, ...] = field(default=("/healthz",))
    # Requests running at once in this process, over all HTTP requests; the rest wait.
    max_inflight: int = DEFAULT_MAX_INFLIGHT
    # A request body must arrive whole within this many seconds (408 otherwise), and a
    # request's header section within header_timeout_seconds (enforced by the uvicorn
    # protocol of ``python -m PACKAGE --http``; another ASGI server enforces its own).
    body_timeout_seconds: float = 30.0
    header_timeout_seconds: float = 10.0
    access_log: bool = False
    # "taskiq": tasks are put on taskiq's queue in the store's Redis and run by
    # `python -m PACKAGE task-worker` (tasks/engine.py); None: each in its server worker.
    task_engine: str | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> HttpSettings:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        if env.get(ENV_PATH):
            values["path"] = env[ENV_PATH]
        if env.get(ENV_ALLOWED_HOSTS):
            values["allowed_hosts"] = _split(env[ENV_ALLOWED_HOSTS])
        if env.get(ENV_ALLOWED_ORIGINS):
            values["allowed_origins"] = _split(env[ENV_ALLOWED_ORIGINS])
        if env.get(ENV_MAX_BODY):
            values["max_body_bytes"] = int(env[ENV_MAX_BODY])
        if env.get(ENV_STORE):
            values["store"] = env[ENV_STORE]
        if env.get(ENV_SESSION_TTL):
            values["session_ttl_seconds"] = float(env[ENV_SESSION_TTL])
        if env.get(ENV_RETRY_MS):
            values["sse_retry_ms"] = int(env[ENV_RETRY_MS])
        if env.get(ENV_MAX_INFLIGHT, "").strip():
            values["max_inflight"] = _positive(ENV_MAX_INFLIGHT, env[ENV_MAX_INFLIGHT])
        if env.get(ENV_BODY_TIMEOUT):
            values["body_timeout_seconds"] = float(env[ENV_BODY_TIMEOUT])
        if env.get(ENV_HEADER_TIMEOUT):
            values["header_timeout_seconds"] = float(env[ENV_HEADER_TIMEOUT])
        if env.get(ENV_ACCESS_LOG):
            values["access_log"] = env[ENV_ACCESS_LOG] == "1"
        if env.get(ENV_TASK_ENGINE):
            values["task_engine"] = env[ENV_TASK_ENGINE]
        return cls(**values)  # type: ignore[arg-type]

    def environment(self) -> dict[str, str]:
        """These settings as the variables ``from_environment`` reads."""
        env = {
            ENV_PATH: self.path,
            ENV_ALLOWED_HOSTS: ",".join(self.allowed_hosts),
            ENV_ALLOWED_ORIGINS: ",".join(self.allowed_origins),
            ENV_MAX_BODY: str(self.max_body_bytes),
            ENV_SESSION_TTL: str(self.session_ttl_seconds),
            ENV_RETRY_MS: str(self.sse_retry_ms),
            ENV_MAX_INFLIGHT: str(self.max_inflight),
            ENV_BODY_TIMEOUT: str(self.body_timeout_seconds),
            ENV_HEADER_TIMEOUT: str(self.header_timeout_seconds),
            ENV_ACCESS_LOG: "1" if self.access_log else "0",
        }
        if self.store is not None:
            env[ENV_STORE] = self.store
        if self.task_engine is not None:
            env[ENV_TASK_ENGINE] = self.task_engine
        return env


def _split(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _positive(name: str, value: str) -> int:
    text = value.strip()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{name}={value!r}: must be a positive integer")
    return int(text)
