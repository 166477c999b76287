"""``--http``: uvicorn's server from its serving modules only, in the one process of
``--http`` (``serve_one``) and, with ``--workers N``, in worker processes under uvicorn's
supervisor (``run_workers``).

uvicorn starts each worker by unpickling its own objects (``uvicorn._subprocess``, the
``Config``, a bound method of ``uvicorn.supervisors.multiprocess.Process``), so every
worker runs the ``uvicorn`` package's ``__init__``, which imports ``uvicorn.main`` and with
it click, and ``uvicorn.supervisors``, which imports watchfiles and anyio: about 3.5 MiB
of RSS in each worker, none of it used to serve (issue 36).

The supervisor here is still uvicorn's ``Multiprocess`` (signals, health checks, a dead
worker replaced, SIGHUP, SIGTTIN and SIGTTOU), but each worker it starts begins at
``serve_worker`` in this module, given plain settings (strings, numbers, dictionaries,
the listening socket and the health-check pipe), and imports uvicorn's serving modules
(``uvicorn.config``, ``uvicorn.server``, its protocols, lifespan and loop) under a
``uvicorn`` package whose ``__init__`` runs only if something asks it for more than
``Config`` and ``Server`` (``serving_modules_only``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import os
import pickle
import struct
import sys
import threading
from collections.abc import Mapping
from socket import socket
from types import ModuleType
from typing import Any, Protocol


class _Started(Protocol):
    """What the health check reads of uvicorn's ``Server``."""

    @property
    def started(self) -> bool: ...


# What uvicorn's package __init__ exports that a worker's modules ask it for
# (``from uvicorn import Config`` in uvicorn.lifespan.on), and where each really lives.
_SERVING_NAMES = {"Config": "uvicorn.config", "Server": "uvicorn.server"}
# uvicorn's exit status for a server that failed to start (uvicorn.config.STARTUP_FAILURE
# in recent releases, uvicorn.main's in 0.30).
_STARTUP_FAILURE = 3


def run_workers(app: str, workers: int, options: Mapping[str, Any]) -> None:
    """Serve ``app`` (an import string) with ``workers`` processes under uvicorn's
    supervisor, as ``uvicorn.run(app, workers=workers, **options)`` does, each worker
    started at ``serve_worker``. ``options`` are ``uvicorn.Config``'s keywords; a class
    among them (the HTTP protocol) must be importable by its module and name."""
    from uvicorn.config import Config
    from uvicorn.supervisors import multiprocess

    spawn = _spawn()
    plain = {key: _by_name(value) for key, value in options.items()}
    config = Config(app, workers=workers, **plain)
    supervisor_process = multiprocess.Process

    class WorkerProcess(multiprocess.Process):
        """uvicorn's handle on one worker (health checks, terminate, join), the worker
        itself started at ``serve_worker`` rather than from pickled uvicorn objects."""

        def __init__(self, config: Config, *rest: Any) -> None:
            # uvicorn's own __init__ first: the attributes its version's supervisor reads
            # (its pipe, ready and failed flags...), whatever they are. Its arguments are
            # (config, sockets) in recent releases, (config, target, sockets) in 0.30.
            super().__init__(config, *rest)
            sockets: list[socket] = rest[-1]
            # Its process object, made but never started, is replaced by one that starts
            # at serve_worker with the same pipe.
            self.process = spawn.Process(
                target=serve_worker,
                kwargs={
                    "app": app,
                    "options": plain,
                    "sockets": sockets,
                    "health": _InheritedFd(self.child_conn.fileno()),
                    "stdin_fileno": _stdin_fileno(),
                },
            )

    # Multiprocess makes its workers by this module-level name (at start, on SIGHUP and
    # SIGTTIN, and when one dies): pointed at ours for the supervisor's run only.
    multiprocess.Process = WorkerProcess  # type: ignore[misc,assignment]
    try:
        sock = config.bind_socket()
        _supervisor(multiprocess.Multiprocess, config, [sock]).run()
    except KeyboardInterrupt:
        pass
    finally:
        multiprocess.Process = supervisor_process  # type: ignore[misc]
        if config.uds and os.path.exists(config.uds):
            os.remove(config.uds)


def _supervisor(supervisor: Any, config: Any, sockets: list[socket]) -> Any:
    """uvicorn's Multiprocess: recent releases take (config, sockets); earlier ones in the
    range (0.30) also a target, the server's run, which our workers do not use."""
    if "target" in inspect.signature(supervisor).parameters:
        from uvicorn.server import Server

        return supervisor(config, target=Server(config=config).run, sockets=sockets)
    return supervisor(config, sockets=sockets)


def serve_worker(
    app: str,
    options: Mapping[str, Any],
    sockets: list[socket],
    health: int,
    stdin_fileno: int | None,
) -> None:
    """A worker process's entry: uvicorn's server for ``app`` on the supervisor's sockets,
    answering the supervisor's health checks on ``health``, as uvicorn's own worker does."""
    serving_modules_only()
    from uvicorn.config import Config
    from uvicorn.server import Server

    if stdin_fileno is not None:  # reattached, as uvicorn does for debuggers
        sys.stdin = os.fdopen(stdin_fileno)
    settings = {key: _imported(value) for key, value in options.items()}
    config = Config(app, **{**settings, "workers": 1})  # sets up logging in this process
    server = Server(config=config)
    threading.Thread(target=_answer_health_checks, args=(health, server), daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):  # the supervisor stops its workers itself
        server.run(sockets)


def serving_modules_only() -> bool:
    """Let ``uvicorn.*`` modules be imported without running the ``uvicorn`` package's
    ``__init__`` (click, watchfiles): the package is made from its spec with nothing in it;
    ``Config`` and ``Server`` asked of it come from their own modules, and any other name
    runs the real ``__init__`` then, so nothing that needs it finds it missing. Does
    nothing once uvicorn is imported. False: uvicorn is not installed."""
    if sys.modules.get("uvicorn") is not None:
        return True
    try:
        spec = importlib.util.find_spec("uvicorn")
    except ValueError:  # sys.modules["uvicorn"] is None: its import is blocked
        return False
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def complete(name: str) -> Any:
        where = _SERVING_NAMES.get(name)
        if where is not None:
            return getattr(importlib.import_module(where), name)
        del package.__getattr__  # run once: the real __init__ defines the rest
        loader.exec_module(package)
        return _attribute(package, name)

    package.__getattr__ = complete  # type: ignore[method-assign]
    sys.modules["uvicorn"] = package
    return True


def serve_one(app: Any, options: Mapping[str, Any]) -> None:
    """``app`` served in this process, as ``uvicorn.run(app, **options)`` does with one
    worker, from uvicorn's serving modules (``serving_modules_only`` first)."""
    from uvicorn.config import Config
    from uvicorn.server import Server

    config = Config(app, **options)
    server = Server(config=config)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if config.uds and os.path.exists(config.uds):
            os.remove(config.uds)
    if not server.started:
        sys.exit(_STARTUP_FAILURE)


def _attribute(package: ModuleType, name: str) -> Any:
    try:
        return package.__dict__[name]
    except KeyError:
        raise AttributeError(f"module 'uvicorn' has no attribute {name!r}") from None


def _answer_health_checks(health: int, server: _Started) -> None:
    # uvicorn's ping: the worker answers whether its server has started (earlier
    # supervisors only wait for an answer, whatever it is). The pipe's far end is a
    # multiprocessing Connection; this end speaks its framing on the bare descriptor, so a
    # worker does not import multiprocessing.connection (with tempfile, shutil, bz2 and
    # lzma: about 0.9 MiB of RSS).
    with contextlib.suppress(OSError, EOFError):
        while True:
            _receive_message(health)
            _send_message(health, pickle.dumps(server.started))


def _receive_message(fd: int) -> bytes:
    """One message of a multiprocessing Connection: a signed 4-byte big-endian length
    (-1: an unsigned 8-byte one follows), then that many bytes."""
    (size,) = struct.unpack("!i", _read_exactly(fd, 4))
    if size == -1:
        (size,) = struct.unpack("!Q", _read_exactly(fd, 8))
    return _read_exactly(fd, size)


def _send_message(fd: int, message: bytes) -> None:
    data = memoryview(struct.pack("!i", len(message)) + message)
    while data:
        data = data[os.write(fd, data) :]


def _read_exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            raise EOFError("the supervisor closed the health-check pipe")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


class _InheritedFd:
    """A descriptor handed to a spawned worker, which gets a duplicate of it, as
    multiprocessing hands over a Connection's; unpickled there as its number."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        from multiprocessing import reduction

        return (_inherited, (reduction.DupFd(self.fd),))


def _inherited(duplicate: Any) -> int:
    fd: int = duplicate.detach()
    return fd


def _by_name(value: Any) -> Any:
    """A class as its ``module:name``, imported in the worker itself (``_imported``)."""
    if isinstance(value, type):
        return _ClassName(f"{value.__module__}:{value.__qualname__}")
    return value


class _ClassName(str):
    """A class named ``module:name`` among a worker's settings (a host is a string too)."""

    __slots__ = ()


def _imported(value: Any) -> Any:
    """A class given as ``module:name`` (``_by_name``), imported: uvicorn 0.30 takes only
    its own protocol names as strings."""
    if isinstance(value, _ClassName):
        module, _, name = value.partition(":")
        return getattr(importlib.import_module(module), name)
    return value


def _stdin_fileno() -> int | None:
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # no stdin (None) or one without a file
        return None


def _spawn() -> Any:
    import multiprocessing

    multiprocessing.allow_connection_pickling()  # the socket and the pipe go to the worker
    return multiprocessing.get_context("spawn")
