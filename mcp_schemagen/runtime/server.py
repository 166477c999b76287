"""The protocol core: JSON-RPC bytes in, JSON-RPC bytes out, in each client's revision.

Transport-free. A transport makes one ``Session`` per connection and passes every
incoming message to ``Server.receive``, which returns the reply right away (``bytes``,
or ``None`` for notifications) or, for an async handler, an awaitable of it.
Notifications a handler sends (log, progress) go out through ``Session.send``.

``Server`` only composes the core's parts (see core/): the envelope unwraps messages,
negotiation picks the revision that answers each request, the lister pages tools/list,
and the calls run tools/call; ``_route`` makes each request's ``RequestContext`` and
hands it to the part the method table (``methods``) names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from . import jsonrpc
from .apps import app_only, has_views
from .asking.request_state import RequestStateSeal
from .core.calls import Calls, dispatch_tools
from .core.dispatch_tool import DispatchTool
from .core.envelope import Envelope
from .core.listing import DEFAULT_CACHE_SCOPE, DEFAULT_TTL_MS, ListCaching, Lister
from .core.negotiation import Negotiation, log_rank_of
from .jsonrpc import Reply, RequestId, RpcError, Send
from .protocol import INVALID_PARAMS, METHOD_NOT_FOUND, Revision
from .registry import PublishedForms, ToolEntry
from .session import Session
from .session.request import RequestContext
from .subscriptions.notices import TASK
from .subscriptions.serving import Subscriptions
from .tasks.settings import ALL_TASK_METHODS, TaskSettings, task_settings

if TYPE_CHECKING:
    from .auth.principal import Principal
    from .prompts.serving import Prompts
    from .prompts.table import PromptEntry
    from .resources.serving import Resources
    from .resources.table import ResourceEntry
    from .skills.serving import SkillRow, Skills
    from .tasks.serving import Tasks

SUBSCRIPTION_METHODS = frozenset(
    {"resources/subscribe", "resources/unsubscribe", "subscriptions/listen"}
)


class Server:
    """An MCP tools server.

    ``tools`` in the order tools/list publishes them; ``revisions`` the protocol revisions
    it speaks (each tool's ``published`` has a definition for every one of them);
    ``prompts`` the prompts prompts/list publishes, in order (none: no prompts capability);
    ``resources`` the static resources and templates (none: no resources capability);
    ``skills`` the entries of the Skills extension (SEP-2640; their files are among
    ``resources``), served and declared in the revisions that carry extensions;
    ``list_changed`` the kinds ("tools", "prompts", "resources") whose list_changed
    notifications it declares and sends, ``subscribe`` whether clients may subscribe to
    resource updates (runtime/subscriptions/);
    ``page_size`` tools per tools/list page (``None``: one page); ``instructions`` what
    initialize (and server/discover) tell the client about using the server; ``ttl_ms``
    and ``cache_scope`` the caching hints of 2026-07-28 tools/list and server/discover.
    Each is a key of ``[tool.mcp-codegen]`` (README, "Configuration").
    """

    def __init__(
        self,
        *,
        tools: Sequence[ToolEntry],
        name: str,
        version: str,
        revisions: Iterable[str],
        page_size: int | None = 100,
        instructions: str | None = None,
        ttl_ms: int = DEFAULT_TTL_MS,
        cache_scope: str = DEFAULT_CACHE_SCOPE,
        request_state: RequestStateSeal | None = None,
        prompts: Sequence[PromptEntry] = (),
        list_changed: Iterable[str] = (),
        subscribe: bool = False,
        resources: Sequence[ResourceEntry] = (),
        skills: Sequence[SkillRow] = (),
    ) -> None:
        caching = ListCaching(ttl_ms, cache_scope).checked()
        # Change notifications (runtime/subscriptions/): a kind's only when the server has
        # that kind (tools it always has), resource subscriptions only with resources.
        has = {"tools": True, "prompts": bool(prompts), "resources": bool(resources)}
        task_settings = _task_settings(tools)
        self.subscriptions = Subscriptions(
            list_changed=[k for k in list_changed if has.get(k, True)],  # unknown: refused there
            subscribe=subscribe and bool(resources),
            stamp={},
            tasks=bool(task_settings),
        )
        self.negotiation = Negotiation(
            revisions,
            name=name,
            version=version,
            instructions=instructions,
            caching=caching,
            prompts=bool(prompts),
            subscriptions=self.subscriptions,
            resources=bool(resources),
            templates=any(r.template is not None for r in resources),
            tasks=bool(task_settings),
            skills=bool(skills),
            apps=has_views(r.mime_type for r in resources),
        )
        self.subscriptions.stamp = self.negotiation.stamp
        self.revisions: tuple[Revision, ...] = self.negotiation.revisions
        self.supported = self.negotiation.supported
        self.tools: dict[str, DispatchTool] = dispatch_tools(tools, self.revisions)
        stamp = self.negotiation.stamp
        # Tools for their view alone (MCP Apps' visibility ["app"]) stay callable but
        # out of the model's list.
        listed = [t for t in self.tools.values() if not app_only(t.entry.published)]
        self.tool_list = Lister(
            "tools",
            lambda revision: [t.entry.published[revision.name] for t in listed],
            page_size=page_size,
            caching=caching,
            stamp=stamp,
        )
        seal = request_state or RequestStateSeal.from_environment()  # 2026-07-28
        self.calls = Calls(self.tools, stamp, seal)
        # Durable tasks (runtime/tasks/, the tasks extension) when a tool may run as one.
        self.tasks: Tasks | None = None
        if task_settings:
            from .tasks.serving import Tasks  # loaded only by a server with task tools

            self.tasks = Tasks(task_settings, stamp)
            # A status written anywhere is heard by every worker's listen streams.
            hub = self.subscriptions.hub
            self.tasks.store.on_status = lambda task_id: hub.announce((TASK, task_id))
            self.subscriptions.task_status = self.tasks.status_notice
            self.tasks.hear = hub.attach  # a 2025-11-25 tasks/result hears its task
            self.subscriptions.session_task_status = self._session_task_status
            self.tasks.tools = self.tools
            self.calls.as_task = self.tasks.offer
        self._seal = seal
        self._caching = caching
        self._page_size = page_size
        self._prompt_entries = prompts
        self._resource_entries = resources
        self._skill_rows = skills
        # What serves prompts and resources is imported when the server has some (which
        # checks them now) or at the first request for them: a tools-only server's
        # start-up pays for neither.
        if prompts:
            self.prompts  # noqa: B018
        if resources:
            self.resources  # noqa: B018
        # Who is calling, read once per request: the HTTP app with authorization sets it
        # (http/auth_setup.py); None: no principal (stdio, HTTP without authorization).
        self.principal_of: Callable[[], Principal | None] | None = None
        self.envelope = Envelope(self._route, self.negotiation.latest)
        self._default_session = Session()

    @cached_property
    def prompts(self) -> Prompts:
        from .prompts.serving import Prompts

        return Prompts(self._prompt_entries, self.negotiation.stamp, self._seal)

    @cached_property
    def prompt_list(self) -> Lister:
        return self._lister(
            "prompts",
            lambda revision: [p.published[revision.name] for p in self.prompts.by_name.values()],
        )

    @cached_property
    def resources(self) -> Resources:
        from .resources.serving import Resources

        stamp = self.negotiation.stamp
        return Resources(self._resource_entries, stamp, self._seal, self._caching)

    @cached_property
    def skills(self) -> Skills:
        from .skills.serving import Skills

        return Skills(self._skill_rows, self.negotiation.stamp, self._caching, self._page_size)

    @cached_property
    def resource_list(self) -> Lister:
        return self._lister("resources", self.resources.published(templates=False))

    @cached_property
    def template_list(self) -> Lister:
        return self._lister("resourceTemplates", self.resources.published(templates=True))

    def _lister(self, kind: str, items: Callable[[Revision], list[Any]]) -> Lister:
        return Lister(
            kind,
            items,
            page_size=self._page_size,
            caching=self._caching,
            stamp=self.negotiation.stamp,
        )

    # ----------------------------------------------------------------- entry points

    def session(self, send: Send | None = None) -> Session:
        """A new connection; ``send`` delivers notifications (log, progress) to it, always
        on the event loop's thread (a sync handler's sends come from a worker thread)."""
        return Session(send)

    def receive(self, raw: bytes | bytearray | memoryview | str, session: Session) -> Reply:
        """Handle one message; bad input gets an error reply, never an exception."""
        return self.envelope.receive(raw, session)

    def handle(self, message: Any, session: Session) -> Reply:
        """``receive`` of a message the transport decoded already (``exact_json.loads``)."""
        return self.envelope.handle(message, session)

    def error_reply(
        self, request_id: RequestId | None, failure: RpcError, session: Session
    ) -> bytes:
        """An error response in the session's revision (the newest before initialize)."""
        return self.envelope.error_reply(request_id, failure, session)

    async def handle_message(
        self, raw: bytes | bytearray | memoryview | str, session: Session | None = None
    ) -> bytes | None:
        """Handle one message in process and return the reply (``None``: nothing to send)."""
        reply = self.receive(raw, self._default_session if session is None else session)
        if reply is None or type(reply) is bytes:
            return reply
        assert not isinstance(reply, bytes)
        return await reply

    # ----------------------------------------------------------------- routing

    async def _session_task_status(self, task_id: str, session_id: str) -> bytes | None:
        """2025-11-25's status notification of a task for its session's GET stream."""
        from .tasks.session_status import for_get_stream

        assert self.tasks is not None
        return await for_get_stream(self.tasks.store, task_id, session_id)

    @cached_property
    def methods(self) -> dict[str, Callable[[RequestContext], Reply]]:
        """The method table: what answers each method once its request's revision is
        resolved (initialize and a ping before it are answered first, in ``_route``).
        Negotiation refuses a method the server or the revision does not serve, so a
        method here is only reached where it is served."""
        return {
            "tools/call": self.calls.call,
            "tools/list": lambda request: self._page(self.tool_list, request),
            "prompts/list": lambda request: self._page(self.prompt_list, request),
            "prompts/get": lambda request: self.prompts.get(request),
            "resources/read": lambda request: self.resources.read(request),
            "resources/list": lambda request: self._page(self.resource_list, request),
            "resources/templates/list": lambda request: self._page(self.template_list, request),
            "completion/complete": self._complete,
            "skills/list": lambda request: self.skills.list(request),
            "skills/get": lambda request: self.skills.get(request),
            **dict.fromkeys(SUBSCRIPTION_METHODS, self.subscriptions.route),
            "server/discover": lambda request: jsonrpc.result(
                request.id, self.negotiation.discover()
            ),
            "logging/setLevel": _set_level,
            "ping": lambda request: jsonrpc.result(request.id, {}),
            **(dict.fromkeys(ALL_TASK_METHODS, self.tasks.route) if self.tasks else {}),
        }

    def _route(
        self, request_id: RequestId, method: str, params: dict[str, Any], session: Session
    ) -> Reply:
        negotiation = self.negotiation
        if method == "initialize":
            return jsonrpc.result(request_id, negotiation.initialize(params, session))
        resolved = negotiation.resolve(method, params, session)
        if resolved is None:  # ping before initialize
            return jsonrpc.result(request_id, {})
        revision, meta, log_rank = resolved
        answer = self.methods.get(method)
        if answer is None:  # pragma: no cover (negotiation refuses it first)
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        principal = None if self.principal_of is None else self.principal_of()
        request = RequestContext(
            request_id, method, params, meta, revision, session, log_rank, principal
        )
        return answer(request)

    @staticmethod
    def _page(lister: Lister, request: RequestContext) -> bytes:
        page = lister.page(request.revision, request.params.get("cursor"))
        return jsonrpc.cached_result(request.id, page)

    def _complete(self, request: RequestContext) -> Reply:
        ref = request.params.get("ref")
        if type(ref) is dict and ref.get("type") == "ref/resource":
            return self.resources.complete(request)
        return self.prompts.complete(request)


def _task_settings(tools: Sequence[ToolEntry]) -> dict[str, TaskSettings]:
    """The settings of each tool whose file lets it run as a task, by name."""
    found = {}
    for entry in tools:
        published = entry.published
        if isinstance(published, PublishedForms):
            definition: Any = published.definition
        else:  # forms given whole (tests): the one that publishes execution, if any
            definition = next((f for f in published.values() if "execution" in f), {})
        settings = task_settings(definition)
        if settings is not None:
            found[entry.name] = settings
    return found


def _set_level(request: RequestContext) -> Reply:
    rank = log_rank_of(request.params.get("level"))
    if rank < 0:
        raise RpcError(INVALID_PARAMS, "logging/setLevel needs a level")
    request.session.log_rank = rank
    return jsonrpc.result(request.id, {})
