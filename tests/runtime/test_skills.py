"""The Skills extension's capability and methods per revision (runtime/core/negotiation.py,
runtime/skills/): declared in `extensions` only where a revision's capabilities carry that
field (2026-07-28; none before it defines one), merged with the tasks extension, and
skills/list, skills/get answered only there."""

from __future__ import annotations

import pytest

from mcp_schemagen.runtime.core.listing import ListCaching
from mcp_schemagen.runtime.core.negotiation import SKILLS_EXTENSION, TASKS_EXTENSION, Negotiation
from mcp_schemagen.runtime.protocol import REVISIONS, Revision

ALL = [revision.name for revision in REVISIONS]


def negotiation(**kinds: bool) -> Negotiation:
    return Negotiation(
        ALL, name="s", version="1", instructions=None, caching=ListCaching(0, "public"), **kinds
    )


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_declared_only_where_extensions_exist(revision: Revision) -> None:
    with_skills = negotiation(resources=True, skills=True)
    declared = with_skills.capabilities_of(revision)
    carries = revision.name == "2026-07-28"
    assert declared.get("extensions") == ({SKILLS_EXTENSION: {}} if carries else None)
    assert declared["resources"] == {}  # the SEP requires resources beside the extension
    for method in ("skills/list", "skills/get"):
        assert with_skills.serves(method, revision) is carries
        assert negotiation(resources=True).serves(method, revision) is False
    assert "extensions" not in negotiation(resources=True).capabilities_of(revision)


def test_merged_with_the_tasks_extension() -> None:
    both = negotiation(resources=True, skills=True, tasks=True)
    by_name = {r.name: r for r in REVISIONS}
    assert both.capabilities_of(by_name["2026-07-28"])["extensions"] == {
        TASKS_EXTENSION: {},
        SKILLS_EXTENSION: {},
    }
    legacy = both.capabilities_of(by_name["2025-11-25"])
    assert "extensions" not in legacy and "tasks" in legacy
    assert "extensions" not in both.capabilities  # the shared base is never changed
