"""The rules for tools: removed or renamed, arguments (inputSchema), results
(outputSchema), annotations that loosen a promise, required scopes, the MCP Apps view
link (app_rules.py)."""

from __future__ import annotations

from typing import Any

from mcp_schemagen.contract.app_rules import view_changes
from mcp_schemagen.contract.changes import Category, Change
from mcp_schemagen.contract.readers import Reader
from mcp_schemagen.contract.snapshot import Definition
from mcp_schemagen.contract.subschema import Comparer
from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.runtime.auth.scopes import SCOPES_KEY

# Each hint's value when absent (MCP's ToolAnnotations) and the value that promises more.
_HINTS = {
    "readOnlyHint": (False, True),
    "destructiveHint": (True, False),
    "idempotentHint": (False, True),
    "openWorldHint": (True, False),
}
# Hints about writes, meaningful only while readOnlyHint is false.
_WRITE_HINTS = ("destructiveHint", "idempotentHint")


def removed(old: Definition, renamed_to: str | None) -> list[Change]:
    said = f"tool {old.name!r} removed"
    if renamed_to:
        said += f" (renamed to {renamed_to!r}? same inputSchema)"
    said += "; clients calling it get an unknown-tool error"
    return [Change(old.file, old.pointer, Category.BREAKING_CALLERS, said)]


def added(new: Definition) -> list[Change]:
    return [Change(new.file, new.pointer, Category.COMPATIBLE, f"tool {new.name!r} added")]


def changed(old: Definition, new: Definition) -> list[Change]:
    return (
        _inputs(old, new)
        + _outputs(old, new)
        + _annotations(old.definition, new)
        + _scopes(old.definition, new)
        + view_changes(old.definition, new)
    )


def _inputs(old: Definition, new: Definition) -> list[Change]:
    before, after = old.definition.get("inputSchema", {}), new.definition.get("inputSchema", {})
    at = pointer_join(new.pointer, "inputSchema")
    comparer = Comparer(before, after, at, Reader.SERVER)
    return Reader.SERVER.changes(new.file, comparer.compare(before, after, at))


def _outputs(old: Definition, new: Definition) -> list[Change]:
    before, after = old.definition.get("outputSchema"), new.definition.get("outputSchema")
    at = pointer_join(new.pointer, "outputSchema")
    if before is None and after is None:
        return []
    if before is None:
        return [Change(new.file, at, Category.COMPATIBLE, "outputSchema added")]
    if after is None:
        said = "outputSchema removed: structured results are no longer promised"
        return [Change(new.file, at, Category.BREAKING_RESULTS, said)]
    comparer = Comparer(before, after, at, Reader.CLIENT)
    return Reader.CLIENT.changes(new.file, comparer.compare(before, after, at))


def _annotations(old: dict[str, Any], new: Definition) -> list[Change]:
    before, after = old.get("annotations") or {}, new.definition.get("annotations") or {}
    if not isinstance(before, dict) or not isinstance(after, dict):
        return []
    changes = []
    read_only = (before.get("readOnlyHint", False), after.get("readOnlyHint", False))
    for hint, (default, promise) in _HINTS.items():
        was, now = before.get(hint, default), after.get(hint, default)
        if was == now or (hint in _WRITE_HINTS and True in read_only):
            # Beside readOnlyHint true, the write hints mean nothing: their change is
            # part of readOnlyHint's, told there.
            continue
        at = pointer_join(new.pointer, "annotations", hint)
        said = f"{hint} {_said(before, hint)} → {_said(after, hint)}"
        if hint == "readOnlyHint":
            said += _write_hints(before, after, writable=now is not True)
        if was == promise:
            changes.append(Change(new.file, at, Category.SAFETY, f"{said}: a promise loosened"))
        else:
            changes.append(Change(new.file, at, Category.COMPATIBLE, f"{said}: a promise added"))
    return changes


def _write_hints(before: dict[str, Any], after: dict[str, Any], *, writable: bool) -> str:
    """The write hints that changed beside a readOnlyHint change: what they say now the
    tool writes, or that they no longer apply now it only reads."""
    named = [
        hint
        for hint in _WRITE_HINTS
        if before.get(hint, _HINTS[hint][0]) != after.get(hint, _HINTS[hint][0])
    ]
    if not named:
        return ""
    if writable:
        return f" (now {', '.join(f'{hint} {_said(after, hint)}' for hint in named)})"
    return f" ({', '.join(named)} no longer apply)"


def _said(annotations: dict[str, Any], hint: str) -> str:
    return str(annotations[hint]).lower() if hint in annotations else "absent"


def _scopes(old: dict[str, Any], new: Definition) -> list[Change]:
    before, after = _scopes_of(old), _scopes_of(new.definition)
    if before == after:
        return []
    at = pointer_join(new.pointer, "_meta", SCOPES_KEY)
    added, dropped = sorted(after - before), sorted(before - after)
    parts = [f"now needs {', '.join(added)}"] if added else []
    parts += [f"no longer needs {', '.join(dropped)}"] if dropped else []
    said = f"required scopes changed: {'; '.join(parts)}"
    return [Change(new.file, at, Category.SAFETY, said)]


def _scopes_of(definition: dict[str, Any]) -> frozenset[str]:
    meta = definition.get("_meta")
    scopes = meta.get(SCOPES_KEY) if isinstance(meta, dict) else None
    return (
        frozenset(s for s in scopes if isinstance(s, str))
        if isinstance(scopes, list)
        else frozenset()
    )
