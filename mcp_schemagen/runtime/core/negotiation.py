"""Which protocol revision answers a request, and what the server says about itself.

Two eras share one server. A request whose ``_meta`` names a stateless revision
(2026-07-28) is answered in that revision's form, with nothing remembered between
requests; ``server/discover`` describes the server to such clients. Otherwise the
revision is the one the connection negotiated with ``initialize`` (2024-10-07 to
2025-11-25).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from ..apps import declare as declare_apps
from ..jsonrpc import RpcError
from ..protocol import (
    INVALID_PARAMS,
    LOG_RANK,
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    Revision,
    ordered,
)
from ..protocol.resources import RESOURCE_METHODS
from ..session import Session, already_initialized
from ..shorten import shorten
from .listing import ListCaching


class Declares(Protocol):
    """What negotiation asks of subscriptions (a feature above core, composed by the
    server): whether the project switches them on, and the capabilities they add."""

    enabled: bool

    def declare(self, capabilities: dict[str, Any]) -> dict[str, Any]: ...


TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
LISTEN = "subscriptions/listen"
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"

# The revision a request is answered in, its ``_meta`` (None when absent or not an object)
# and the log level it asked for (None: follow the session's logging/setLevel). A plain
# tuple: every request makes one, and a NamedTuple costs a third of a tools/list.
Resolved = tuple[Revision, dict[str, Any] | None, int | None]


class Negotiation:
    """The revisions a server speaks, and its identity (name, version, instructions)."""

    __slots__ = (
        "_apps",
        "_by_name",
        "_caching",
        "_has_stateless",
        "_legacy",
        "_prompts",
        "_resource_methods",
        "_skills",
        "_subscriptions",
        "_tasks",
        "capabilities",
        "instructions",
        "latest",
        "methods",
        "revisions",
        "server_info",
        "stamp",
        "supported",
    )

    def __init__(
        self,
        revisions: Iterable[str],
        *,
        name: str,
        version: str,
        instructions: str | None,
        caching: ListCaching,
        prompts: bool = False,
        subscriptions: Declares | None = None,
        resources: bool = False,
        templates: bool = False,
        tasks: bool = False,
        skills: bool = False,
        apps: bool = False,
    ) -> None:
        try:
            chosen = ordered(revisions)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        if not chosen:
            raise ValueError("a server speaks at least one protocol revision")
        self.revisions: tuple[Revision, ...] = chosen
        self.supported: list[str] = [r.name for r in chosen]
        self.latest = chosen[-1]
        self._by_name = {r.name: r for r in chosen}
        self._legacy = [r for r in chosen if not r.stateless]
        self._has_stateless = any(r.stateless for r in chosen)
        # initialize is always answered: a stateless-only server refuses it with -32022.
        self.methods = frozenset({"initialize"}).union(*(r.methods for r in chosen))
        if prompts:  # prompts/list, prompts/get and completion/complete, in every revision
            self.methods = self.methods.union(*(r.prompt_methods for r in chosen))
        self._prompts = prompts
        # Subscribing methods and capabilities, where the project switches them on.
        self._subscriptions = subscriptions if subscriptions and subscriptions.enabled else None
        if self._subscriptions is not None:
            self.methods = self.methods.union(*(r.subscription_methods for r in chosen))
        # resources/list, resources/templates/list and resources/read when the project has
        # resources, and completion/complete when it has templates (their variables).
        resource_methods = RESOURCE_METHODS if resources else frozenset()
        if templates:
            resource_methods = resource_methods | {"completion/complete"}
        self._resource_methods = resource_methods
        self.methods = self.methods | resource_methods
        # Durable tasks' methods (runtime/tasks/) when a tool may run as a task, each
        # revision its own (Revision.task_methods).
        self._tasks = tasks
        self._apps = apps  # views of the MCP Apps extension (runtime/apps.py)
        if tasks:  # a task's status is heard on subscriptions/listen (SEP-2663)
            self.methods = self.methods.union(*(r.subscription_methods & {LISTEN} for r in chosen))
        if tasks:
            self.methods = self.methods.union(*(r.task_methods for r in chosen))
        # The Skills extension's methods when the project has skills (runtime/skills/).
        self._skills = skills
        if skills:
            self.methods = self.methods.union(*(r.skill_methods for r in chosen))
        self.instructions = instructions
        self._caching = caching
        self.server_info = {"name": name, "version": version}
        self.capabilities = {"logging": {}, "tools": {"listChanged": False}}
        # What every 2026-07-28 result carries in its _meta.
        self.stamp: dict[str, Any] = {META_SERVER_INFO: self.server_info}

    def resolve(self, method: str, params: dict[str, Any], session: Session) -> Resolved | None:
        """The revision that answers ``method``; None for a ping before initialize (which
        any revision answers alike). Raises the JSON-RPC error for an unknown method or
        revision and for a request no revision can answer yet."""
        if method not in self.methods:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {shorten(method)}")
        meta = params.get("_meta")
        if type(meta) is not dict:
            meta = None
        version = None if meta is None else meta.get(META_PROTOCOL_VERSION)
        log_rank: int | None = None
        if version is not None:
            revision = self._by_name.get(version) if type(version) is str else None
            if revision is None:
                raise self.unsupported(version)
            if revision.stateless:
                assert meta is not None
                if type(meta.get(META_CLIENT_CAPABILITIES)) is not dict:
                    raise RpcError(
                        INVALID_PARAMS,
                        f"Missing _meta {META_CLIENT_CAPABILITIES} (an object; {{}} declares none)",
                    )
                log_rank = log_rank_of(meta.get(META_LOG_LEVEL))
            elif session.revision is not None:
                revision = session.revision
        elif session.revision is not None:
            revision = session.revision
        elif method == "ping":
            return None
        else:
            raise RpcError(INVALID_PARAMS, self._no_revision_message())
        if not self.serves(method, revision):
            raise RpcError(
                METHOD_NOT_FOUND,
                f"Method not found in protocol revision {revision.name}: {shorten(method)}",
            )
        return revision, meta, log_rank

    def initialize(self, params: dict[str, Any], session: Session) -> dict[str, Any]:
        """The initialize result; the session takes the negotiated revision."""
        requested = params.get("protocolVersion")
        if type(requested) is not str:
            raise RpcError(INVALID_PARAMS, "initialize needs protocolVersion, a string")
        if not self._legacy:
            raise self.unsupported(requested)
        if session.revision is not None:
            raise already_initialized(session.revision)
        revision = self._by_name.get(requested)
        if revision is None or revision.stateless:
            revision = self._legacy[-1]  # the newest revision this server negotiates
        session.revision = revision
        session.initialized = False
        session.log_rank = 0
        capabilities = params.get("capabilities")
        session.client_capabilities = capabilities if type(capabilities) is dict else {}
        info = params.get("clientInfo")
        session.client_info = info if type(info) is dict else {}
        body: dict[str, Any] = {
            "protocolVersion": revision.name,
            "capabilities": self.capabilities_of(revision),
            "serverInfo": self.server_info,
        }
        if self.instructions is not None and "instructions" in revision.initialize_result_fields:
            body["instructions"] = self.instructions
        return body

    def discover(self) -> dict[str, Any]:
        """The server/discover result (2026-07-28)."""
        body: dict[str, Any] = {
            "supportedVersions": self.supported,
            "capabilities": self.capabilities_of(self.latest),
            "ttlMs": self._caching.ttl_ms,
            "cacheScope": self._caching.cache_scope,
            "resultType": "complete",
            "_meta": self.stamp,
        }
        if self.instructions is not None:
            body["instructions"] = self.instructions
        return body

    def serves(self, method: str, revision: Revision) -> bool:
        """Whether ``method`` is answered in ``revision``: its own methods, and the prompt
        methods when the server has prompts."""
        return (
            method in revision.methods
            or (self._prompts and method in revision.prompt_methods)
            or method in self._resource_methods
            or (self._subscriptions is not None and method in revision.subscription_methods)
            or (self._tasks and method in revision.task_methods)
            or (self._tasks and method == LISTEN and method in revision.subscription_methods)
            or (self._skills and method in revision.skill_methods)
        )

    def capabilities_of(self, revision: Revision) -> dict[str, Any]:
        """What the server declares to a client of ``revision``: prompts and resources only
        when it has them, completion (of prompt arguments and template variables, where
        the revision has that capability) when it has either to complete, and
        ``listChanged``/``subscribe`` where the project switches them on; the extensions
        (tasks, skills) in ``extensions`` where the revision carries that field."""
        declared: dict[str, Any] = self.capabilities
        if self._prompts or self._resource_methods:
            declared = dict(self.capabilities)
            if self._prompts:
                declared["prompts"] = {"listChanged": False}
            if self._resource_methods:
                declared["resources"] = {}
            completes = self._prompts or "completion/complete" in self._resource_methods
            if completes and revision.completions_capability:
                declared["completions"] = {}
        if self._subscriptions is not None:
            declared = self._subscriptions.declare(declared)
        extensions: dict[str, Any] = {}
        if self._tasks and revision.task_methods:
            declared = dict(declared)
            if revision.stateless:  # the tasks extension (SEP-2663)
                extensions[TASKS_EXTENSION] = {}
            else:  # 2025-11-25's experimental form: tools/call may be a task
                declared["tasks"] = {
                    "list": {},
                    "cancel": {},
                    "requests": {"tools": {"call": {}}},
                }
        if self._skills and revision.skill_methods:  # SEP-2640, no optional feature
            extensions[SKILLS_EXTENSION] = {}
        if extensions:
            declared = {**declared, "extensions": extensions}
        if self._apps and revision.extensions_capability:
            # MCP Apps only where ServerCapabilities has `extensions`: earlier revisions
            # have no place for it (their hosts find views by the tools' _meta.ui).
            declared = declare_apps(declared)
        return declared

    def unsupported(self, requested: Any) -> RpcError:
        if type(requested) is not str:
            return RpcError(INVALID_PARAMS, f"_meta {META_PROTOCOL_VERSION} must be a string")
        return RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"requested": shorten(requested), "supported": self.supported},
        )

    def _no_revision_message(self) -> str:
        if self._has_stateless and self._legacy:
            return (
                f"Missing _meta {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}; "
                "send them on every request, or initialize first"
            )
        if self._has_stateless:
            return f"Missing _meta {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}"
        return "The connection is not initialized: send initialize first"


def log_rank_of(level: Any) -> int:
    """The rank of a log level; -1 (send nothing) when absent."""
    if level is None:
        return -1
    rank = LOG_RANK.get(level) if type(level) is str else None
    if rank is None:
        raise RpcError(
            INVALID_PARAMS,
            f"Invalid log level {shorten(repr(level))}; one of {', '.join(LOG_RANK)}",
        )
    return rank
