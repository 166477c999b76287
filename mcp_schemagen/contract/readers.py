"""Who reads the values a compared schema describes, the one place that knows it: the
server reads arguments (a tool's inputSchema, a prompt argument's or a URI variable's
schema), the client reads results (a tool's outputSchema). Every verdict's direction and
every line's words follow from it: a server refuses what its schema no longer accepts, so
a narrowing breaks callers; a client consumes whatever the server may now send, so a
widening, or a declared property no longer promised, breaks result consumers."""

from __future__ import annotations

import enum
import json
from typing import Any

from mcp_schemagen.contract.changes import Category, Change, merged
from mcp_schemagen.contract.differences import Difference, Effect

_NARROWING = frozenset({Effect.NARROWS, Effect.NARROWS_UNDECLARED})
_UNDECIDED_NARROWING = frozenset({Effect.UNKNOWN, Effect.MAYBE_NARROWS})
_UNDECIDED_WIDENING = frozenset({Effect.UNKNOWN, Effect.MAYBE_WIDENS})


class Reader(enum.Enum):
    SERVER = "server"  # arguments: what callers send
    CLIENT = "client"  # results: what consumers receive

    def changes(self, file: str, found: list[Difference]) -> list[Change]:
        """The differences found in one schema, each with its verdict and its line."""
        return [
            Change(
                file,
                d.pointer,
                self.category(d),
                self._said(d),
                self is Reader.SERVER and _undeclared_only(d),
            )
            for d in merged(found)
        ]

    def category(self, found: Difference) -> Category:
        effects = found.effects
        if self is Reader.SERVER:
            # A value shown refused breaks, whatever else is undecided at the same place.
            if effects & _NARROWING:
                return Category.BREAKING_CALLERS
            return Category.UNKNOWN if effects & _UNDECIDED_NARROWING else Category.COMPATIBLE
        if effects & {Effect.WIDENS, Effect.DROPS_PROPERTY}:
            return Category.BREAKING_RESULTS
        return Category.UNKNOWN if effects & _UNDECIDED_WIDENING else Category.COMPATIBLE

    def _said(self, found: Difference) -> str:
        """The difference's words, with what it means to a result consumer where they
        do not say it themselves (an argument's line is about values sent: no more)."""
        if self is Reader.SERVER or found.told:
            return found.what
        effects = found.effects
        if Effect.WIDENS in effects:
            tail = "a consumer may now get a result the old schema did not allow"
        elif Effect.DROPS_PROPERTY in effects:
            tail = "a consumer that reads it may no longer get it"
        elif effects & _UNDECIDED_WIDENING:
            tail = "cannot tell whether a result may now be one the old schema did not allow"
        elif effects & (_NARROWING | {Effect.MAYBE_NARROWS}):
            tail = "results promise more; consumers still read every result"
        else:
            return found.what
        return f"{found.what}: {tail}"

    # Words of the object rules (objects.py), which differ by reader.

    def property_added_over_any(self, name: str, example: tuple[bool, Any]) -> str:
        """A property declared where additionalProperties accepted any value: its values
        are narrowed from anything to its schema."""
        said = f"property {name!r} added where any key was accepted: "
        found, value = example
        shown = json.dumps({name: value}, ensure_ascii=False) if found else None
        if self is Reader.SERVER:
            if shown:
                return said + f"a call that sent {shown} is refused now"
            return said + "a call that sent it undeclared may be refused"
        if shown:
            return said + (
                f"a result that carried {shown} is no longer sent; consumers still read "
                "every result"
            )
        return said + "a result that carried it undeclared may no longer be sent"

    def property_added_over_closed(self, name: str) -> str:
        """A property declared where additionalProperties false refused the key."""
        if self is Reader.SERVER:
            return f"property {name!r} added"
        return (
            f"property {name!r} added: a result may now carry it, which additionalProperties "
            f"false refused; a consumer that checks results against the old schema refuses it"
        )

    def now_required(self, name: str) -> str:
        if self is Reader.SERVER:
            return f"{name!r} is now required"
        return f"{name!r} is now required: every result carries it; consumers still read them"

    def no_longer_required(self, name: str) -> str:
        if self is Reader.SERVER:
            return f"{name!r} is no longer required"
        return (
            f"{name!r} is no longer required: a result may now leave it out, and a consumer "
            f"that reads {name!r} may get nothing"
        )

    def property_removed_over_closed(self, name: str) -> str:
        if self is Reader.SERVER:
            return f"property {name!r} removed, and additionalProperties false now refuses it"
        return (
            f"property {name!r} removed, and additionalProperties false now refuses it: "
            f"no longer promised; a consumer that reads {name!r} no longer gets it"
        )

    def property_removed_over_open(self, name: str) -> str:
        if self is Reader.SERVER:
            said = "now checked as an additional property"
            return f"property {name!r} removed from properties: {said}"
        return (
            f"property {name!r} removed from properties: no longer promised; a consumer "
            f"that reads {name!r} may now get nothing, or any value additionalProperties allows"
        )


def _undeclared_only(found: Difference) -> bool:
    return Effect.NARROWS_UNDECLARED in found.effects and not (
        found.effects & {Effect.NARROWS, Effect.UNKNOWN, Effect.MAYBE_NARROWS}
    )
