"""The outcome of `mcp-codegen breaking` as lines for people or JSON for tools."""

from __future__ import annotations

import json
from collections import Counter

from mcp_schemagen.contract.changes import Category
from mcp_schemagen.contract.run import Outcome
from mcp_schemagen.contract.settings import ACKNOWLEDGED_FILE


def as_text(outcome: Outcome) -> tuple[str, str]:
    """(stdout: one line per change; stderr: warnings and the summary)."""
    lines = []
    for change in outcome.changes:
        entry = outcome.acknowledged.get(change)
        lines.append(f"{change} (acknowledged: {entry.reason})" if entry else str(change))
    notes = list(outcome.warnings)
    notes += [
        f"{ACKNOWLEDGED_FILE}#/{a.index}: unused acknowledgement: no change at {a.location}"
        for a in outcome.unused
    ]
    counts = Counter(c.category for c in outcome.changes)
    summary = ", ".join(f"{counts[c]} {c.label}" for c in Category if counts[c])
    failing = outcome.failing
    if not outcome.changes:
        notes.append(f"no changes against {outcome.against}")
    elif failing:
        names = ", ".join(sorted({c.category.label for c in failing}))
        notes.append(
            f"{len(outcome.changes)} changes against {outcome.against} ({summary}); "
            f"{len(failing)} fail ({names}): revert them, or accept each on purpose in "
            f"{ACKNOWLEDGED_FILE} (pointer and reason)"
        )
    else:
        notes.append(f"{len(outcome.changes)} changes against {outcome.against} ({summary})")
    return "".join(f"{line}\n" for line in lines), "".join(f"{note}\n" for note in notes)


def as_json(outcome: Outcome) -> str:
    document = {
        "against": outcome.against,
        "failing": bool(outcome.failing),
        "failingCategories": sorted(c.value for c in outcome.failing_categories),
        "changes": [
            {
                "file": change.file,
                "pointer": change.pointer,
                "category": change.category.value,
                "what": change.what,
                "acknowledged": (
                    outcome.acknowledged[change].reason if change in outcome.acknowledged else None
                ),
            }
            for change in outcome.changes
        ],
        "unusedAcknowledgements": [
            {"pointer": a.location, "reason": a.reason, "ref": a.reference} for a in outcome.unused
        ],
        "warnings": outcome.warnings,
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
