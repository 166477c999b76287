"""registry.PublishedForms: a tool's form for each revision, derived when first asked for,
equal to what ``Revision.publish_tool`` makes of its definition."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_schemagen.runtime.protocol import BY_NAME, NAMES
from mcp_schemagen.runtime.registry import PublishedForms, load_table

DEFINITION: dict[str, Any] = {
    "name": "t",
    "title": "T",  # not in the oldest revisions
    "description": "d",
    "inputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True, "x-custom": 1},
}


def test_each_revision_s_form_is_publish_tool_s_and_derived_when_asked() -> None:
    forms = PublishedForms(DEFINITION, {name: BY_NAME[name] for name in NAMES})
    assert list(forms) == list(NAMES) and len(forms) == len(NAMES)
    assert all(name in forms for name in NAMES) and "1999-01-01" not in forms
    assert forms._forms == {}  # membership and names derive nothing
    for name in NAMES:
        assert forms[name] == BY_NAME[name].publish_tool(DEFINITION)[0]
    assert set(forms._forms) == set(NAMES)
    with pytest.raises(KeyError):
        forms["1999-01-01"]


def test_revisions_publishing_the_same_form_share_it() -> None:
    forms = PublishedForms(DEFINITION, {name: BY_NAME[name] for name in NAMES})
    distinct = {id(forms[name]) for name in NAMES}
    assert len(distinct) == len({repr(forms[name]) for name in NAMES}) < len(NAMES)
    assert all(forms[name]["inputSchema"] is DEFINITION["inputSchema"] for name in NAMES)


def test_load_table_publishes_only_the_revisions_asked_for() -> None:
    row = {"definition": DEFINITION, "arguments": {}, "defaults": {}, "whole_arguments": None}
    (entry,) = load_table({"t": row}, {"t": lambda: None}, NAMES[-2:])  # type: ignore[dict-item]
    assert list(entry.published) == list(NAMES[-2:])
    assert entry.published[NAMES[-1]]["title"] == "T"
    assert NAMES[0] not in entry.published
