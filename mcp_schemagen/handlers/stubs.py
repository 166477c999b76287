"""New handler stubs and new handler modules, and the comments that mark what the generator
owns in them."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable

from mcp_schemagen.handlers.imports import TYPE_CHECKING_IMPORT, read_by_signatures, split
from mcp_schemagen.handlers.spec import (
    KIND_KEYS,
    HandlerModuleSpec,
    HandlerSpec,
    ParsedSpec,
)
from mcp_schemagen.kinds import BY_NAME
from mcp_schemagen.render.formatting import format_unsorted

# One line of at most 88 characters, so that no line-length linter objects to it.
ORPHAN_BANNER = (
    "# --- mcp-codegen: orphaned handlers (tools removed from schemas); delete when done ---"
)
MARKER_PREFIX = BY_NAME["tool"].marker_prefix  # "# mcp-codegen tool: "
# The marker prefix of each kind's key prefix (a tool's key has none), from kinds.KINDS.
KEYED_PREFIXES = tuple(
    (key_prefix, f"# mcp-codegen {marker}: ") for marker, key_prefix in KIND_KEYS.items()
)


def marker_comment(key: str) -> str:
    """The marker line of a handler keyed ``key`` (HandlerSpec.marker)."""
    # json quoting keeps any tool name on one line and readable back exactly.
    for key_prefix, marker in KEYED_PREFIXES:
        if key.startswith(key_prefix):
            return marker + json.dumps(key[len(key_prefix) :])
    return MARKER_PREFIX + json.dumps(key)


def marker_prefix(comment: str) -> str | None:
    """Which marker a comment is, if it is one: its prefix."""
    for prefix in (MARKER_PREFIX, *(marker for _, marker in KEYED_PREFIXES)):
        if comment.startswith(prefix):
            return prefix
    return None


def render_stub(handler: HandlerSpec) -> str:
    doc = f"    {handler.docstring}\n" if handler.docstring else ""
    body = f"    raise NotImplementedError({handler.tool!r})\n"
    define = "def"
    if handler.body is not None:
        define = "async def"
        body = "".join(f"    {line}\n" if line else "\n" for line in handler.body.split("\n"))
    return (
        f"{marker_comment(handler.marker)}\n"
        f"{define} {handler.function}({handler.parameters}) -> {handler.returns}:\n"
        f"{doc}"
        f"{body}"
    )


def stub_reads(handlers: Iterable[HandlerSpec], importable: frozenset[str] | None) -> set[str]:
    """The names of ``.types`` that new stubs' bodies read (an imported operation's stub
    reads ``upstream``): the merge imports them as it imports the signatures' types, so a
    stub is one line and the handler module's imports stay the merge's own."""
    names: set[str] = set()
    for handler in handlers:
        if handler.body is None:
            continue
        source = "async def _stub():\n" + "".join(
            f"    {line}\n" for line in handler.body.split("\n")
        )
        names.update(
            node.id
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        )
    return names & importable if importable is not None else set()


def render_new(spec: HandlerModuleSpec) -> str:
    """A fresh handler module, already formatted by ruff (so merges add stubs alike)."""
    parsed = ParsedSpec.of(spec)  # reject a malformed spec here too
    # As a merge would write them: a stub reads no generated name but in annotations.
    body_reads = stub_reads(spec.handlers, spec.type_names)
    wanted = [*parsed.imports, *(("types", name, None) for name in sorted(body_reads))]
    imports = split(wanted, read_by_signatures(parsed.signatures.values()) | body_reads)
    head = f"{spec.docstring}\n\nfrom __future__ import annotations\n"
    if imports.lazy:
        head += f"\n{TYPE_CHECKING_IMPORT}"
    for part in (imports.real_source(), imports.lazy_source()):
        if part:
            head += f"\n{part}"
    return format_unsorted("\n\n".join([head, *(render_stub(h) for h in spec.handlers)]))
