"""``python -m PACKAGE``: serve over stdio (the default) or Streamable HTTP (``--http``).

Unknown options are errors (exit 2), never ignored. uvicorn is imported only for
``--http``; it and redis (for ``--store redis://…``) are the package's ``http`` extra.
What only ``--http`` uses (the store, address parsing, URL quoting, the HTTP and
authorization settings) is imported there too, and argparse only when there are options
to read: a client spawning a stdio server with none pays for none of it
(tests/runtime/test_startup_imports.py).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .server import Server
from .stdio import (
    MAX_INFLIGHT,
    MAX_INFLIGHT_VARIABLE,
    claim_stdout,
    max_inflight_from_environment,
    run_stdio,
)

if TYPE_CHECKING:
    import argparse

    from .http.settings import HttpSettings

_EPILOG = """\
stdio is the default: a client starts this process and speaks over stdin/stdout.
--http serves the MCP endpoint (Streamable HTTP, every revision the server speaks) with
uvicorn; other ASGI servers run the same app, PACKAGE.asgi:app, with the settings in the
environment (MCP_HTTP_PATH, MCP_HTTP_ALLOWED_HOSTS, MCP_HTTP_ALLOWED_ORIGINS,
MCP_HTTP_MAX_BODY_BYTES, MCP_STORE, MCP_SESSION_TTL_SECONDS, MCP_TASK_ENGINE), e.g.
  granian --interface asgi PACKAGE.asgi:app
  gunicorn -k uvicorn_worker.UvicornWorker PACKAGE.asgi:app
Without authorization (MCP_AUTH_ISSUERS, MCP_AUTH_RESOURCE) the app serves only
connections to a loopback address; MCP_AUTH_DISABLED=everywhere serves anyone, as
--no-auth does (MCP_AUTH_DISABLED=1: off, loopback only; 0: on; other values stop it).
More than one worker (or machine) needs a shared store for sessions (2025-03-26 to
2025-11-25): --store redis://HOST:6379/0. 2026-07-28 requests are stateless; a retry after
an input_required result needs the same MCP_CODEGEN_STATE_KEY on every worker (--workers N
draws one for its workers when it is unset).
--task-engine taskiq (with --store redis://...) puts tasks on taskiq's queue in that Redis;
  python -m PACKAGE task-worker --redis redis://HOST:6379/0
runs them, on this machine or others (pip install 'PACKAGE[tasks]').
Liveness: GET /healthz (or PATH/health) answers 200 while the process serves.
Readiness: GET /readyz (or PATH/ready) answers 200, or 503 while the store is unreachable
(requests then get 503 with Retry-After and a JSON-RPC error body).
A --store that cannot work (no redis package, Redis down) stops start-up with one line."""


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's, given the terminal's width: its own asks shutil, which imports the
    compression modules (half a MiB) into every server start, --help or not."""
    import argparse

    text = os.environ.get("COLUMNS", "")
    columns = int(text) if text.isdigit() else 0
    if columns <= 0:  # as shutil.get_terminal_size: standard output's, else 80
        try:
            columns = os.get_terminal_size(1).columns
        except OSError:
            columns = 80
    return argparse.RawDescriptionHelpFormatter(prog, width=max(columns, 20) - 2)


def parser(package: str) -> argparse.ArgumentParser:
    import argparse

    from .http import auth_setup
    from .http.settings import HttpSettings

    parser = argparse.ArgumentParser(
        prog=f"python -m {package}",
        description=f"Serve the {package} MCP server.",
        epilog=_EPILOG.replace("PACKAGE", package),
        formatter_class=_formatter,
        allow_abbrev=False,
    )
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP, not stdio")
    parser.add_argument(
        "--max-concurrent-requests",
        type=_positive,
        metavar="N",
        help=f"requests handled at once (over HTTP: per worker process, batch members "
        f"included); more wait their turn while ping, cancellations and answers to the "
        f"server's requests still pass (default ${MAX_INFLIGHT_VARIABLE} or {MAX_INFLIGHT})",
    )
    http = parser.add_argument_group("HTTP (with --http)")
    http.add_argument("--host", help="address to bind (default 127.0.0.1: this machine only)")
    http.add_argument("--port", type=int, help="port (default 8000)")
    http.add_argument("--workers", type=int, help="worker processes (default 1)")
    http.add_argument("--path", help="path of the MCP endpoint (default /mcp)")
    http.add_argument(
        "--store",
        help="shared state: memory: (default, one worker) or redis://HOST:PORT/DB",
    )
    http.add_argument(
        "--allowed-host",
        action="append",
        metavar="HOST[:PORT]",
        help="Host header value to accept (repeatable; default: the loopback names, plus "
        "--host when it is a specific address); * accepts any (only behind a proxy that checks it)",
    )
    http.add_argument(
        "--allowed-origin",
        action="append",
        metavar="ORIGIN",
        help="browser Origin to accept besides the allowed hosts' own (repeatable)",
    )
    http.add_argument(
        "--max-body-bytes", type=int, help="larger request bodies get 413 (default 4 MiB)"
    )
    http.add_argument(
        "--session-ttl", type=float, help="seconds an idle session is kept (default 3600)"
    )
    http.add_argument(
        "--header-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help=f"a request's headers must arrive within this, else the connection closes "
        f"(default {HttpSettings.header_timeout_seconds:g})",
    )
    http.add_argument(
        "--body-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help=f"a request's body must arrive within this, else 408 and the connection "
        f"closes (default {HttpSettings.body_timeout_seconds:g})",
    )
    http.add_argument(
        "--task-engine",
        choices=["taskiq"],
        help="run tasks on a task-queue engine's workers (python -m PACKAGE task-worker) "
        "instead of in this server's workers; needs --store redis://... "
        "(default $MCP_TASK_ENGINE, else none)",
    )
    http.add_argument(
        "--access-log",
        action="store_true",
        default=None,
        help="log one line per HTTP request on stdout (off by default)",
    )
    auth_setup.add_arguments(parser)
    return parser


def main(
    server: Server | Callable[[], Server],
    package: str,
    argv: Sequence[str] | None = None,
    authorization: Mapping[str, str] | None = None,  # pyproject's, as MCP_AUTH_* values
) -> None:
    """Serve ``server``; given as a function, it is called (importing the user's handlers)
    only after the options are read and, for stdio, standard output is claimed."""
    if not (sys.argv[1:] if argv is None else argv):
        # How clients start a stdio server: with no options there is nothing for argparse
        # to read (it and the HTTP and authorization settings stay unimported).
        try:
            limit = max_inflight_from_environment()
        except ValueError as exc:
            parser(package).error(str(exc))
        claim_stdout()
        run_stdio(_loaded(server), max_inflight=limit)
        return
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[0] == "task-worker":  # the engine's worker: runs tasks, serves nothing
        from .tasks.engine_worker import worker_main

        worker_main(lambda: _loaded(server), package, arguments[1:])
        return
    from .http import auth_setup
    from .http.settings import ENV_TASK_ENGINE, HttpSettings

    cli = parser(package)
    args = cli.parse_args(argv)
    http_only = [
        name
        for name in (
            "host", "port", "workers", "path", "store", "allowed_host", "allowed_origin",
            "max_body_bytes", "session_ttl", "header_timeout", "body_timeout", "access_log",
            "task_engine",
        )
        if getattr(args, name) is not None
    ]  # fmt: skip
    auth_setup.configure(args, cli, authorization or {})
    if not args.http:
        if http_only:
            cli.error(f"--{http_only[0].replace('_', '-')} needs --http")
        limit = args.max_concurrent_requests
        if limit is None:
            try:
                limit = max_inflight_from_environment()
            except ValueError as exc:
                cli.error(str(exc))
        claim_stdout()
        run_stdio(_loaded(server), max_inflight=limit)
        return
    max_inflight = args.max_concurrent_requests
    if max_inflight is None:
        try:
            max_inflight = max_inflight_from_environment()
        except ValueError as exc:
            cli.error(str(exc))
    host = args.host or "127.0.0.1"
    workers = args.workers or 1
    if workers < 1:
        cli.error("--workers must be 1 or more")
    task_engine = _task_engine(args.task_engine, args.store, cli, os.environ.get(ENV_TASK_ENGINE))
    settings = HttpSettings(
        path=args.path or "/mcp",
        allowed_hosts=tuple(args.allowed_host or _default_hosts(host, cli)),
        allowed_origins=tuple(args.allowed_origin or ()),
        max_body_bytes=args.max_body_bytes or HttpSettings.max_body_bytes,
        store=args.store,
        session_ttl_seconds=args.session_ttl or HttpSettings.session_ttl_seconds,
        max_inflight=max_inflight,
        header_timeout_seconds=args.header_timeout or HttpSettings.header_timeout_seconds,
        body_timeout_seconds=args.body_timeout or HttpSettings.body_timeout_seconds,
        access_log=bool(args.access_log),
        task_engine=task_engine,
    )
    if workers > 1:  # the workers check each other's 2026-07-28 requestState
        import secrets

        from .asking.request_state import KEY_VARIABLE

        os.environ.setdefault(KEY_VARIABLE, secrets.token_urlsafe(32))
    if workers > 1 and settings.store is None:
        print(
            "warning: workers do not share sessions without --store redis://...; "
            "only stateless (2026-07-28) clients are served reliably",
            file=sys.stderr,
        )
    serve_http(
        _loaded(server), package, settings, host=host, port=args.port or 8000, workers=workers
    )


def _task_engine(
    option: str | None, store: str | None, cli: argparse.ArgumentParser, environment: str | None
) -> str | None:
    """``--task-engine``, else ``MCP_TASK_ENGINE``; it needs the Redis store, whose Redis
    holds the engine's queue beside the tasks' records."""
    engine = option or environment or None
    if engine is None:
        return None
    from .store.url import is_redis_url
    from .tasks.engine import ENGINES

    named = "--task-engine" if option else "MCP_TASK_ENGINE"
    if engine not in ENGINES:
        cli.error(f"{named} {engine!r}: the task engines are {', '.join(ENGINES)}")
    if not is_redis_url(store):
        cli.error(
            f"{named} {engine} needs --store redis://HOST:PORT/DB: the engine's queue and "
            "the tasks' records live in that Redis, shared with the task workers"
        )
    return engine


def _check_store(url: str, package: str) -> None:
    """Exit with one line, before any worker starts, when the Redis store cannot work:
    the package is missing, or the server does not answer."""
    try:
        import redis.asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        from .store.redis_connections import closed
    except ImportError:
        sys.exit(
            f"--store {_shown(url)} needs the redis package: "
            f"pip install '{package.replace('_', '-')}[http]' (or pip install redis)"
        )

    async def ping() -> None:
        client = redis.Redis.from_url(
            url, socket_connect_timeout=3.0, socket_timeout=3.0, retry=Retry(NoBackoff(), 0)
        )
        try:
            await client.ping()
        finally:
            await closed(client)

    try:
        asyncio.run(ping())
    except Exception as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        sys.exit(
            f"--store {_shown(url)}: Redis does not answer ({reason}); start it or fix the URL"
        )


def _shown(url: str) -> str:
    """The URL without its password (in the authority or a ``password`` query
    parameter), for messages."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is not None:
        netloc = parts.netloc.replace(":" + parts.password + "@", ":***@", 1)
        parts = parts._replace(netloc=netloc)
    if parts.query:
        query = [
            (name, "***" if name.lower() == "password" else value)
            for name, value in parse_qsl(parts.query, keep_blank_values=True)
        ]
        parts = parts._replace(query=urlencode(query, safe="*"))
    return urlunsplit(parts)


def _positive_seconds(text: str) -> float:
    import argparse

    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return seconds


def _positive(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return int(text)


def _loaded(server: Server | Callable[[], Server]) -> Server:
    return server if isinstance(server, Server) else server()


def _default_hosts(host: str, cli: argparse.ArgumentParser) -> list[str]:
    import ipaddress

    from .http.settings import LOOPBACK_HOSTS

    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return [*LOOPBACK_HOSTS, host]  # a host name: accept requests naming it
    if address.is_unspecified:
        cli.error(
            f"--host {host} listens on every interface: name the host names clients use "
            "with --allowed-host (DNS rebinding protection), or * behind a checking proxy"
        )
    if address.is_loopback:
        return list(LOOPBACK_HOSTS)
    return [*LOOPBACK_HOSTS, f"[{host}]" if address.version == 6 else host]


def serve_http(
    server: Server, package: str, settings: HttpSettings, *, host: str, port: int, workers: int
) -> None:
    # uvicorn's serving modules only, in this process as in every worker: not its package
    # __init__ with its command line (click) and reloaders (watchfiles).
    from .http.worker_processes import serve_one, serving_modules_only

    if not serving_modules_only():
        sys.exit(f"--http needs uvicorn: pip install '{package.replace('_', '-')}[http]'")
    from .store.url import is_redis_url

    if is_redis_url(settings.store):
        _check_store(str(settings.store), package)
    if settings.task_engine is not None:
        from .tasks.engine import engine_installed, missing_engine

        if not engine_installed():
            sys.exit(missing_engine(package))
    os.environ.update(settings.environment())  # worker processes read the same settings
    from .http.announce import announce_when_answering
    from .http.deadlines import protocol_class

    # Printed once the port answers: the line tells a reader the server is ready.
    line = started_line(server, package, settings, host, port, workers)
    announce_when_answering(line, host, port, settings.path.rstrip("/") + "/health")
    options = dict(
        host=host,
        port=port,
        lifespan="on",
        http=protocol_class(),  # uvicorn's, with a deadline on the header section
        ws="none",  # MCP has no WebSocket transport: no worker imports websockets
        **_logging(settings.access_log),
    )
    if workers == 1:
        from .http.app import McpHttpApp

        serve_one(McpHttpApp(server, settings), options)
    else:
        # uvicorn's supervisor; its workers import uvicorn's serving modules, not its CLI
        from .http.worker_processes import run_workers

        run_workers(f"{package}.asgi:app", workers, options)


def started_line(
    server: Server, package: str, settings: HttpSettings, host: str, port: int, workers: int
) -> str:
    """What ``--http`` prints on stderr as it starts: where, what, how (no secrets)."""
    from .store.url import is_redis_url

    shown_host = f"[{host}]" if ":" in host else host
    store = _shown(str(settings.store)) if is_redis_url(settings.store) else "memory (this process)"
    return (
        f"{package}: MCP over Streamable HTTP at http://{shown_host}:{port}{settings.path}; "
        f"revisions {', '.join(server.supported)}; {workers} worker"
        f"{'s' if workers != 1 else ''}; store {store}; up to {settings.max_inflight} "
        f"requests at once per worker; access log {'on' if settings.access_log else 'off'}"
        + (f"; tasks run by {settings.task_engine} task workers" if settings.task_engine else "")
    )


def _logging(access_log: bool) -> dict[str, object]:
    """uvicorn's logging: warnings only, and with ``access_log`` one line per request."""
    if not access_log:
        return {"log_level": "warning", "access_log": False}
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["uvicorn"]["level"] = "WARNING"
    config["loggers"]["uvicorn.error"]["level"] = "WARNING"
    config["loggers"]["uvicorn.access"]["level"] = "INFO"
    from .http.access_log import RedactQuery
    from .http.announce import QuietProbe

    # By dotted name: the worker processes of --workers configure their logging from it.
    # The start-up probe is not logged; a token in a query string is refused (400), and
    # not written here either.
    filters = config.setdefault("filters", {})
    filters["quiet_probe"] = {"()": f"{QuietProbe.__module__}.{QuietProbe.__qualname__}"}
    filters["redact_query"] = {"()": f"{RedactQuery.__module__}.{RedactQuery.__qualname__}"}
    config["handlers"]["access"]["filters"] = ["quiet_probe", "redact_query"]
    return {"log_config": config, "log_level": None, "access_log": True}
