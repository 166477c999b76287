"""A tool renamed in its file, its inputSchema unchanged: the handler follows it.

The evidence is the one `mcp-codegen breaking` uses ("renamed to 'find_tickets'? same
inputSchema"): the previous build recorded each tool's inputSchema digest in the handler
spec (the build record, _manifest.json). A tool that left the schemas and exactly one new
tool with the same inputSchema is a rename: the handler takes the new name, its body
kept, instead of moving to the orphan section behind a fresh raising stub. Where the
evidence fits more than one way the merge stops (exit 3) and says how to settle it by
hand; without a record (a first build, a deleted package) nothing is guessed."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from mcp_schemagen.handlers.module import HandlerModule, Top
from mcp_schemagen.handlers.spec import KIND_KEYS, HandlerSpec, MergeConflict, ParsedSpec
from mcp_schemagen.handlers.stubs import marker_comment

_PROMPT_KEY = KIND_KEYS["prompt"]


def renamed_handlers(
    module: HandlerModule, spec: ParsedSpec, previous_digests: Mapping[str, str]
) -> dict[int, HandlerSpec]:
    """Top index of a handler whose tool (or prompt) was renamed -> the handler it becomes."""
    if not previous_digests:
        return {}
    wanted = {h.marker for h in spec.handlers.values()}
    taken = {top.function.name for top in module.tops if top.function is not None}
    vanished: dict[tuple[str, str], list[Top]] = {}
    for top in module.tops:
        fn = top.function
        if top.orphan or top.marker is None or fn is None or top.marker in wanted:
            continue
        digest = previous_digests.get(top.marker, "")
        if digest and fn.name not in spec.handlers:
            vanished.setdefault((_kind(top.marker), digest), []).append(top)
    arrived: dict[tuple[str, str], list[HandlerSpec]] = {}
    for handler in spec.handlers.values():
        fresh = handler.function not in taken and handler.marker not in previous_digests
        if handler.kind in _TAKES and handler.schema_digest and fresh:
            arrived.setdefault((handler.kind, handler.schema_digest), []).append(handler)
    renames: dict[int, HandlerSpec] = {}
    for key, tops in vanished.items():
        new = arrived.get(key, [])
        if not new:
            continue
        if len(tops) > 1 or len(new) > 1:
            raise _ambiguous(tops, new)
        top, handler = tops[0], new[0]
        _check_name_unused(module, top, handler)
        renames[top.index] = handler
    return renames


# What each kind of handler takes, which a rename keeps (as `breaking` words it).
_TAKES = {"tool": "inputSchema", "prompt": "arguments"}


def _kind(marker: str) -> str:
    return "prompt" if marker.startswith(_PROMPT_KEY) else "tool"


def _shown(marker: str | None) -> str:
    return repr(str(marker).removeprefix(_PROMPT_KEY))


def _ambiguous(tops: list[Top], new: list[HandlerSpec]) -> MergeConflict:
    gone = ", ".join(_shown(top.marker) for top in tops)
    came = ", ".join(repr(h.tool) for h in new)
    first, handler = tops[0], new[0]
    assert first.function is not None
    kind = handler.kind
    return MergeConflict(
        first.function.name,
        f"{kind}s {gone} left the schemas and {came} arrived, all with the same"
        f" {_TAKES[kind]}: which handler serves which new {kind} is not clear, so none is"
        " moved; rename each handler by hand, its function and the marker above it, e.g."
        f" `{marker_comment(handler.marker)}` above `def {handler.function}(`, then build"
        " again (a handler left as it is moves to the orphaned section, its body kept)",
    )


def _check_name_unused(module: HandlerModule, top: Top, handler: HandlerSpec) -> None:
    """Renaming the function would leave a call or reference to its old name unbound."""
    fn = top.function
    assert fn is not None
    for node in ast.walk(module.ast):
        if isinstance(node, ast.Name) and node.id == fn.name and node.lineno != fn.lineno:
            raise MergeConflict(
                fn.name,
                f"{handler.kind} {_shown(top.marker)} was renamed to {handler.tool!r} (same"
                f" {_TAKES[handler.kind]}), but line {node.lineno} uses the name {fn.name!r},"
                f" which renaming its handler to {handler.function!r} would unbind; rename"
                " the function and that use by hand, with the marker"
                f" `{marker_comment(handler.marker)}` above it, then build again",
            )


def renamed_warning(top: Top, handler: HandlerSpec) -> str:
    fn = top.function
    assert fn is not None
    return (
        f"handler {fn.name!r}: {handler.kind} {_shown(top.marker)} was renamed to"
        f" {handler.tool!r} (same {_TAKES[handler.kind]}); its handler is now"
        f" {handler.function!r}, body kept"
    )
