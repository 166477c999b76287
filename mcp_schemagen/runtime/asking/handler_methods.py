"""The context's methods for asking the client (``Context`` mixes ``Asking`` in): one
handler body for every revision; interaction.py carries each question there.

    answer = await get_context().elicit("Delete it?", form(...), key="confirm")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..protocol import Revision
from .errors import ClientCapabilityMissing, InteractionError
from .interaction import Channel

if TYPE_CHECKING:  # questions.py is imported when a handler first asks
    from .questions import ElicitResult, Question, Root, SampleResult

DEFAULT_TIMEOUT_SECONDS = 300.0


class Asking:
    """The context's methods for asking the client (mixed into ``Context``)."""

    __slots__ = ()
    revision: Revision

    def _channel(self) -> Channel:
        raise NotImplementedError

    def client_supports(self, request: Question) -> bool:
        """Whether the client declared what ``request`` needs (so it can be asked)."""
        return request.method in self.revision.client_requests and request.allowed(
            self._channel().capabilities
        )

    async def ask(
        self, requests: Mapping[str, Question], *, timeout: float = DEFAULT_TIMEOUT_SECONDS
    ) -> dict[str, Any]:
        """Ask several questions in one round (at once), each under its key; the answers
        by the same keys (``ElicitResult``, ``SampleResult``, ``list[Root]``)."""
        from .questions import declares

        channel = self._channel()
        for request in requests.values():
            if request.method not in self.revision.client_requests:
                raise InteractionError(
                    f"protocol revision {self.revision.name} has no {request.method} request"
                )
            needed = request.capability()
            if needed is not None and not declares(channel.capabilities, needed[0]):
                raise ClientCapabilityMissing(needed[0], needed[1])
        return await channel.ask(requests, self.revision, timeout)

    async def elicit(
        self,
        message: str,
        schema: Mapping[str, Any] | None = None,
        *,
        url: str | None = None,
        elicitation_id: str | None = None,
        key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> ElicitResult:
        """Ask the user: a form (``schema``: flat primitive fields, see ``form()``) or,
        where the revision defines it, a ``url`` to open. ``key`` names the question in a
        2026-07-28 input_required result (default: ``elicit-1``, ``elicit-2``, ...)."""
        from .questions import Elicit

        request = Elicit(message, schema, url, elicitation_id)
        answer: ElicitResult = await self._ask_one(request, key, timeout)
        return answer

    async def sample(
        self,
        messages: Sequence[str | Mapping[str, Any]],
        *,
        max_tokens: int,
        key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        **options: Any,
    ) -> SampleResult:
        """Ask the client's model (sampling/createMessage). ``options``: system_prompt,
        temperature, stop_sequences, model_preferences, include_context, metadata, and
        tools / tool_choice where the revision defines them."""
        from .questions import Sample

        answer: SampleResult = await self._ask_one(
            Sample(messages, max_tokens, **options), key, timeout
        )
        return answer

    async def list_roots(
        self, *, key: str | None = None, timeout: float = DEFAULT_TIMEOUT_SECONDS
    ) -> list[Root]:
        """The client's roots (roots/list)."""
        from .questions import ListRoots

        answer: list[Root] = await self._ask_one(ListRoots(), key, timeout)
        return answer

    async def _ask_one(self, request: Question, key: str | None, timeout: float) -> Any:
        if key is None:
            key = self._channel().next_key(request.kind)
        return (await self.ask({key: request}, timeout=timeout))[key]


__all__ = ["DEFAULT_TIMEOUT_SECONDS", "Asking"]
