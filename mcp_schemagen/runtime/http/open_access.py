"""Serving without authorization, and only where that is meant: ``MCP_AUTH_DISABLED``.

Its values: unset, empty, ``0``, ``false``, ``no``, ``off``: authorization as configured.
``1``, ``true``, ``yes``, ``on``, ``loopback``: off, and only connections to a loopback
address (127.0.0.1, ::1) are served. ``everywhere``: off on every address, every tool
to anyone who can reach the port (what ``--no-auth`` writes for its workers). Anything
else stops the start: a switch that weakens security is never guessed from a typo.

When authorization is neither configured nor off ``everywhere``, the app serves only
connections to a loopback address: the rule ``--http --host`` applies on the command
line, held in the app too, for ``PACKAGE.asgi:app`` under gunicorn, granian or uvicorn,
which the command line never sees. Either way off is said loudly at start-up.
"""

from __future__ import annotations

import functools
import ipaddress
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..auth.settings import ENV_DISABLED, AuthConfigError

if TYPE_CHECKING:  # the command line reads the switch without the HTTP modules
    from .endpoint import Responder
    from .wire import AsgiReceive, AsgiSend

EVERYWHERE = "everywhere"
LOOPBACK = "loopback"
_OFF_ON_LOOPBACK = ("1", "true", "yes", "on", LOOPBACK)
_NOT_OFF = ("", "0", "false", "no", "off")


def disabled(environ: Mapping[str, str]) -> str | None:
    """How ``MCP_AUTH_DISABLED`` turns authorization off: None (it does not),
    ``"loopback"`` or ``"everywhere"``; AuthConfigError for any other value."""
    value = environ.get(ENV_DISABLED, "").strip().lower()
    if value in _NOT_OFF:
        return None
    if value in _OFF_ON_LOOPBACK:
        return LOOPBACK
    if value == EVERYWHERE:
        return EVERYWHERE
    raise AuthConfigError(
        f"{ENV_DISABLED}={environ[ENV_DISABLED]!r} is not a choice: 1 turns authorization "
        f"off for loopback connections only, {EVERYWHERE} off on every address (every tool "
        "to anyone who can reach the port), 0 or unset keeps it"
    )


def announce(mode: str) -> None:
    """The start-up line saying authorization is off (once per worker)."""
    if mode == EVERYWHERE:
        where = "EVERY TOOL IS SERVED TO ANYONE WHO CAN REACH THIS PORT"
    else:
        where = "only connections to a loopback address (127.0.0.1, ::1) are served"
    print(
        f"mcp-codegen auth: WARNING: AUTHORIZATION IS OFF ({ENV_DISABLED}={mode}): {where}",
        file=sys.stderr,
        flush=True,
    )


def on_loopback(server: Any) -> bool:
    """Whether the connection reached this server on a loopback address. ``server`` is
    the ASGI scope's (host, port), None or a path for a Unix socket: local too."""
    if server is None or type(server) not in (tuple, list) or not server:
        return True
    host = server[0]
    if type(host) is not str:
        return True
    return _loopback_host(host)


@functools.lru_cache(maxsize=64)  # a server listens on few addresses: parsed once each
def _loopback_host(host: str) -> bool:
    if host.startswith("/") or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class LoopbackOnly:
    """Stands where the guard would: serves loopback connections, refuses others (403)."""

    def __init__(self, why: str) -> None:
        self.why = why
        self._said = False

    async def admit(
        self,
        scope: dict[str, Any],
        headers: dict[str, str],
        receive: AsgiReceive,
        respond: Responder,
    ) -> tuple[AsgiReceive, AsgiSend] | None:
        if on_loopback(scope.get("server")):
            return receive, respond.send
        if not self._said:  # once: a scanner would fill the log otherwise
            self._said = True
            print(
                f"mcp-codegen auth: refused a connection to {scope.get('server')!r}: {self.why}"
                " (this line is said once)",
                file=sys.stderr,
                flush=True,
            )
        await respond.plain(403, b"Forbidden: " + self.why.encode())
        return None
