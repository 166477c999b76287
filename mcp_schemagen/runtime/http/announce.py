"""The ``--http`` start-up line is printed once the server answers, not as it starts.

What answers first is not known in advance: one worker binds the port only after its
start-up (the store connected and subscribed), while with ``--workers N`` uvicorn's
supervisor binds it at once and the workers start accepting later. So the line is printed
by a daemon thread of the process that runs uvicorn, once a request it sends to the
server's health path gets any HTTP response (a 401 behind authorization, a 421 for a Host
the allow-list lacks: still the server answering). The probe's query (``PROBE_QUERY``)
keeps it out of the access log (``QuietProbe``). A server that does not answer within
``GIVE_UP_SECONDS`` gets a warning instead; one that fails to start prints uvicorn's error
and no line claiming it serves.
"""

from __future__ import annotations

import http.client
import logging
import sys
import threading
import time

GIVE_UP_SECONDS = 120.0
PROBE_TIMEOUT_SECONDS = 10.0  # a connection in the backlog waits for a worker to accept it
RETRY_SECONDS = 0.02
PROBE_QUERY = "?started"  # marks the probe's request, which the access log leaves out
# Where a wildcard listen address is reached from this host.
LOCAL_FOR_WILDCARD = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def announce_when_answering(line: str, host: str, port: int, path: str) -> threading.Thread:
    """Print ``line`` on stderr, from a daemon thread, once ``host:port`` answers an HTTP
    request for ``path``."""
    probe = path + PROBE_QUERY
    thread = threading.Thread(
        target=_announce, args=(line, host, port, probe), name="mcp-announce", daemon=True
    )
    thread.start()
    return thread


def _announce(line: str, host: str, port: int, path: str) -> None:
    target = LOCAL_FOR_WILDCARD.get(host, host)
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while time.monotonic() < deadline:
        if answers(target, port, path):
            print(line, file=sys.stderr, flush=True)
            return
        time.sleep(RETRY_SECONDS)
    print(
        f"warning: nothing answers on {host}:{port} {GIVE_UP_SECONDS:.0f} s after start",
        file=sys.stderr,
        flush=True,
    )


def answers(host: str, port: int, path: str) -> bool:
    """Whether an HTTP server at ``host:port`` answers a GET (any status)."""
    connection = http.client.HTTPConnection(host, port, timeout=PROBE_TIMEOUT_SECONDS)
    try:
        connection.request("GET", path)
        connection.getresponse().read()
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()
    return True


class QuietProbe(logging.Filter):
    """Leaves the start-up probe's request out of uvicorn's access log, whose records
    carry ``(client, method, path with query, HTTP version, status)``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        return not (
            isinstance(args, tuple) and len(args) >= 3 and str(args[2]).endswith(PROBE_QUERY)
        )
