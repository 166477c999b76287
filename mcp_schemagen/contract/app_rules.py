"""`breaking`'s rules for a tool's MCP Apps link (`_meta.ui`): the view it names and who
may call it. The arguments and results a view exchanges with its tools are the tools'
inputSchema and outputSchema, compared by tool_rules.py like any other tool's."""

from __future__ import annotations

from typing import Any

from mcp_schemagen.contract.changes import Category, Change
from mcp_schemagen.contract.snapshot import Definition
from mcp_schemagen.diagnostics import pointer_join

_EVERYONE = ("model", "app")  # the extension's default visibility


def _ui(definition: dict[str, Any]) -> dict[str, Any]:
    meta = definition.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else {}


def _visibility(ui: dict[str, Any]) -> frozenset[str]:
    value = ui.get("visibility", list(_EVERYONE))
    return (
        frozenset(v for v in value if isinstance(v, str))
        if isinstance(value, list)
        else frozenset()
    )


def view_changes(old: dict[str, Any], new: Definition) -> list[Change]:
    before, after = _ui(old), _ui(new.definition)
    where = pointer_join(new.pointer, "_meta", "ui")
    changes = []
    was, now = before.get("resourceUri"), after.get("resourceUri")
    at = pointer_join(where, "resourceUri")
    if was != now:
        if now is None:
            said = f"view {was!r} unlinked: hosts no longer show this tool's results in it"
            changes.append(Change(new.file, at, Category.BREAKING_RESULTS, said))
        elif was is None:
            changes.append(Change(new.file, at, Category.COMPATIBLE, f"view {now!r} linked"))
        else:
            said = f"view {was!r} → {now!r}: hosts show this tool's results in another view"
            changes.append(Change(new.file, at, Category.BREAKING_RESULTS, said))
    dropped = _visibility(before) - _visibility(after)
    gained = _visibility(after) - _visibility(before)
    at = pointer_join(where, "visibility")
    if "model" in dropped:
        said = "no longer visible to the model (visibility): it leaves the model's tools/list"
        changes.append(Change(new.file, at, Category.BREAKING_CALLERS, said))
    if "app" in dropped:
        said = "no longer callable from views (visibility): a view's call to it is refused"
        changes.append(Change(new.file, at, Category.BREAKING_CALLERS, said))
    if gained:
        said = f"now visible to {' and '.join(sorted(gained))} (visibility)"
        changes.append(Change(new.file, at, Category.COMPATIBLE, said))
    return changes
