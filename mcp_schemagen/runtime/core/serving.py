"""What tools/call, prompts/get, resources/read and completion/complete share: a handler
run by the call lifecycle for one request (core/lifecycle.py), in a 2026-07-28 round with
its own channel to the client; a result stamped with the stateless era's ``_meta``; and
the checks of a completion request's argument before its completer or enum answers.

Each kind keeps what is its own: finding the item, checking its arguments, the job that
shapes its result (core/calls.py, prompts/serving.py, resources/serving.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any

from .. import jsonrpc
from ..asking.interaction import Channel, round_channel
from ..asking.request_state import RequestStateSeal
from ..jsonrpc import Reply, RpcError
from ..protocol import INVALID_PARAMS
from ..session.request import RequestContext
from .lifecycle import Job, run_call

if TYPE_CHECKING:  # completion is loaded with what has completions: prompts, templates
    from .completion import Completer


class Serving:
    """The serving every kind of handler shares; ``stamp`` is the 2026-07-28 result
    ``_meta``, ``request_state`` seals a 2026-07-28 round's answers between rounds."""

    __slots__ = ("_stamp", "request_state")

    def __init__(self, stamp: Mapping[str, Any], request_state: RequestStateSeal) -> None:
        self._stamp = stamp
        self.request_state = request_state

    def channel(self, request: RequestContext, binding: str) -> Channel | None:
        """A 2026-07-28 round's channel to the client (None: the session's); its
        requestState is bound to ``binding`` ("NAME" of a tool, "prompt:NAME",
        "resource:URI"), so one sealed for another item is not accepted here."""
        return round_channel(request, self.request_state, binding)

    def run(
        self,
        job: Job,
        kwargs: Mapping[str, Any],
        name: str,
        request: RequestContext,
        channel: Channel | None,
    ) -> Reply:
        """``job``'s handler called with ``kwargs`` by the call lifecycle."""
        return run_call(job, kwargs, name, request, channel, self._stamp)

    def result(self, request: RequestContext, body: dict[str, Any]) -> bytes:
        """A result answered without running a handler, stamped for its revision."""
        return jsonrpc.result(request.id, request.revision.stamp(body, self._stamp))

    def complete_argument(
        self,
        request: RequestContext,
        names: Collection[str],
        invalid: Callable[[str], RpcError],
        completers: Mapping[str, Completer],
        completions: Callable[[str, str], list[str]],
    ) -> Reply:
        """completion/complete of an argument (or template variable) among ``names``:
        ``invalid(name)`` the error for one not among them, its completer if it has one,
        else ``completions(name, prefix)``, its enum values (core/completion.py)."""
        argument = request.params.get("argument")
        if type(argument) is not dict or type(argument.get("name")) is not str:
            raise RpcError(INVALID_PARAMS, "completion/complete needs argument.name, a string")
        name = argument["name"]
        if name not in names:
            raise invalid(name)
        if type(argument.get("value", "")) is not str:
            raise RpcError(INVALID_PARAMS, "argument.value must be a string")
        from .completion import answer

        completer = completers.get(name)
        return answer(completer, lambda prefix: completions(name, prefix), request, self._stamp)
