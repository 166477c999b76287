"""Resource and resource template rules, on two snapshots: one table row per rule, old and
new definitions and the categories `breaking` gives, and the listing bytes."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest

from mcp_schemagen.contract.changes import Category
from mcp_schemagen.contract.rules import compare
from mcp_schemagen.contract.snapshot import Definition, Snapshot
from mcp_schemagen.runtime.resources.uri_template import UriTemplate

REVISIONS = ("2025-06-18", "2025-11-25")
RESOURCE: dict[str, Any] = {
    "uri": "file:///readme.md",
    "name": "readme",
    "description": "The README.",
    "mimeType": "text/markdown",
    "x-mcp-codegen-file": "docs/readme.md",
}
TEMPLATE: dict[str, Any] = {
    "uriTemplate": "file:///logs/{date}{?level}",
    "name": "logs",
    "description": "A day's log.",
    "mimeType": "text/plain",
    "x-mcp-codegen-schema": {
        "date": {"type": "string", "pattern": "^[0-9-]+$"},
        "level": {"type": "string", "enum": ["info", "error"]},
    },
}


def _snapshot(resources: list[dict[str, Any]], templates: list[dict[str, Any]]) -> Snapshot:
    return Snapshot(
        "x",
        {
            "resources": [
                Definition("resource", "resources/r.json", f"/{i}", r)
                for i, r in enumerate(resources)
            ],
            "resourceTemplates": [
                Definition("resource template", "resources/t.json", f"/{i}", t)
                for i, t in enumerate(templates)
            ],
        },
    )


def _categories(old: Snapshot, new: Snapshot) -> list[tuple[str, str]]:
    return sorted({(c.category.value, c.what) for c in compare(old, new, REVISIONS)})


def _with(base: dict[str, Any], **fields: Any) -> dict[str, Any]:
    changed = copy.deepcopy(base)
    for key, value in fields.items():
        if value is None:
            changed.pop(key, None)
        else:
            changed[key] = value
    return changed


def _schemas(**schemas: Any) -> dict[str, Any]:
    return {**copy.deepcopy(TEMPLATE["x-mcp-codegen-schema"]), **schemas}


BREAKING = Category.BREAKING_CALLERS.value
RESULTS = Category.BREAKING_RESULTS.value
COMPATIBLE = Category.COMPATIBLE.value
CACHE = Category.CACHE.value
UNKNOWN = Category.UNKNOWN.value

# (old resources, new resources, the categories of the non-cache changes, cache expected)
RESOURCE_TABLE = [
    pytest.param([RESOURCE], [], {BREAKING}, True, id="removed"),
    pytest.param(
        [RESOURCE],
        [_with(RESOURCE, uri="file:///README.md")],
        {BREAKING, COMPATIBLE},
        True,
        id="uri-changed-same-name",
    ),
    pytest.param(
        [RESOURCE],
        [_with(RESOURCE, uri="file:///new.md", name="other")],
        {BREAKING, COMPATIBLE},
        True,
        id="uri-changed-same-content-file",
    ),
    pytest.param([], [RESOURCE], {COMPATIBLE}, True, id="added"),
    pytest.param([RESOURCE], [_with(RESOURCE, mimeType="text/plain")], {RESULTS}, True, id="mime"),
    pytest.param(
        [RESOURCE], [_with(RESOURCE, description="Other.")], set(), True, id="description"
    ),
    pytest.param([RESOURCE], [_with(RESOURCE, title="Read me")], set(), True, id="title"),
    pytest.param(
        [RESOURCE], [_with(RESOURCE, annotations={"priority": 0.5})], set(), True, id="annotations"
    ),
    pytest.param([RESOURCE], [_with(RESOURCE, name="readme2")], set(), True, id="name-only"),
    pytest.param(
        [RESOURCE],
        [_with(RESOURCE, **{"x-mcp-codegen-file": "docs/other.md"})],
        set(),
        False,
        id="content-file-not-contract",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected", "cache"), RESOURCE_TABLE)
def test_resource_rules(
    old: list[dict[str, Any]], new: list[dict[str, Any]], expected: set[str], cache: bool
) -> None:
    found = _categories(_snapshot(old, []), _snapshot(new, []))
    assert {c for c, _ in found if c != CACHE} == expected, found
    assert any(c == CACHE for c, _ in found) is cache, found


def test_a_changed_uri_is_named_as_a_likely_rename() -> None:
    new = _with(RESOURCE, uri="file:///README.md")
    found = _categories(_snapshot([RESOURCE], []), _snapshot([new], []))
    said = [w for c, w in found if c == BREAKING]
    assert said == [
        "resource 'file:///readme.md' removed: resources/read of it fails (its uri changed to"
        " 'file:///README.md'? same name or content file)"
    ]


# (old template, new template, the categories of the non-cache changes, cache expected)
TEMPLATE_TABLE = [
    pytest.param(
        _with(TEMPLATE, uriTemplate="file:///logs/{date}"),
        TEMPLATE,
        {COMPATIBLE},
        True,
        id="optional-query-added",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, uriTemplate="file:///logs/{date}"),
        {BREAKING},
        True,
        id="query-removed",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, uriTemplate="file:///logs/{day}{?level}"),
        {BREAKING},
        True,
        id="variable-renamed",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, uriTemplate="file:///log/{date}{?level}"),
        {BREAKING},
        True,
        id="literal-changed",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, uriTemplate="file:///logs/{date}/{part}{?level}"),
        {BREAKING},
        True,
        id="path-variable-added",
    ),
    pytest.param(
        _with(TEMPLATE, uriTemplate="file:///logs/{date}/{level}"),
        _with(TEMPLATE, uriTemplate="file:///logs/{level}/{date}"),
        {BREAKING},
        True,
        id="path-variables-swapped",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, uriTemplate="file:///logs/{date}{?level,limit}"),
        {COMPATIBLE},
        True,
        id="second-query-added",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, uriTemplate="file:///logs/{date}{&level}"),
        {BREAKING},
        True,
        id="query-operator-changed",
    ),
    pytest.param(
        _with(TEMPLATE, uriTemplate="file:///logs{/date}{?level}"),
        _with(TEMPLATE, uriTemplate="file:///logs{/date,part}{?level}"),
        {COMPATIBLE},
        True,
        id="variable-appended-to-a-path-expression",
    ),
    pytest.param(
        _with(TEMPLATE, uriTemplate="file:///logs/{+date}"),
        _with(TEMPLATE, uriTemplate="file:///logs/{+date,part}"),
        {BREAKING},
        True,
        id="variable-appended-to-a-reserved-expansion",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, uriTemplate="file:///logs/{date"),
        {UNKNOWN},
        True,
        id="not-rfc-6570",
    ),
    pytest.param(
        TEMPLATE,
        _with(
            TEMPLATE,
            **{"x-mcp-codegen-schema": _schemas(level={"type": "string", "enum": ["info"]})},
        ),
        {BREAKING},
        False,
        id="schema-narrowed",
    ),
    pytest.param(
        TEMPLATE,
        _with(TEMPLATE, **{"x-mcp-codegen-schema": _schemas(date={"type": "string"})}),
        {COMPATIBLE},
        False,
        id="schema-widened",
    ),
    pytest.param(
        _with(TEMPLATE, **{"x-mcp-codegen-schema": None}),
        TEMPLATE,
        {BREAKING},
        False,
        id="schema-added-narrows-any-string",
    ),
    pytest.param(
        TEMPLATE, _with(TEMPLATE, mimeType="application/json"), {RESULTS}, True, id="mime"
    ),
    pytest.param(TEMPLATE, _with(TEMPLATE, description="Logs."), set(), True, id="description"),
    pytest.param(
        TEMPLATE, _with(TEMPLATE, annotations={"audience": ["user"]}), set(), True, id="annotations"
    ),
]


@pytest.mark.parametrize(("old", "new", "expected", "cache"), TEMPLATE_TABLE)
def test_template_rules(
    old: dict[str, Any], new: dict[str, Any], expected: set[str], cache: bool
) -> None:
    found = _categories(_snapshot([], [old]), _snapshot([], [new]))
    assert {c for c, _ in found if c != CACHE} == expected, found
    assert any(c == CACHE for c, _ in found) is cache, found


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param([TEMPLATE], [], {BREAKING}, id="removed"),
        pytest.param([], [TEMPLATE], {COMPATIBLE}, id="added"),
        pytest.param([TEMPLATE], [_with(TEMPLATE, name="daily")], {COMPATIBLE}, id="renamed"),
    ],
)
def test_template_removed_added_renamed(
    old: list[dict[str, Any]], new: list[dict[str, Any]], expected: set[str]
) -> None:
    found = _categories(_snapshot([], old), _snapshot([], new))
    assert {c for c, _ in found if c != CACHE} == expected, found
    assert any(w.endswith("resources/templates/list") for c, w in found if c == CACHE), found


def test_a_field_a_revision_does_not_publish_changes_no_bytes_for_it() -> None:
    # title is published from 2025-06-18 only: for 2025-03-26 clients nothing changes.
    new = _with(RESOURCE, title="Read me")
    old_side, new_side = _snapshot([RESOURCE], []), _snapshot([new], [])
    assert compare(old_side, new_side, ("2025-03-26",)) == []
    said = [str(c) for c in compare(old_side, new_side, ("2025-03-26", "2025-06-18"))]
    assert said == [
        "resources/r.json#/0: cache: title changed: the listing bytes differ for revision"
        " 2025-06-18"
    ]


def test_listing_order_of_resources() -> None:
    other = _with(RESOURCE, uri="file:///b.md", name="b")
    found = _categories(_snapshot([RESOURCE, other], []), _snapshot([other, RESOURCE], []))
    assert found == [
        (CACHE, "order of resources/list changed, for revisions 2025-06-18, 2025-11-25")
    ]


VALUES = ["1", "a,b", "x/y", "p.q", "k;v=w", "s#t", "u?v&w", "a b", "é", "", "1,2/3.4"]


@pytest.mark.parametrize("operator", ["", "+", "#", ".", "/", ";", "?", "&"])
@pytest.mark.parametrize("old_expression", ["a", "a*", "a:2"])
def test_a_variable_appended_is_compatible_exactly_when_old_uris_match_the_same(
    operator: str, old_expression: str
) -> None:
    # The verdict against the runtime's own matcher: every URI the old template expands
    # to (values with each operator's separators) must match the new one with the same
    # values whenever `breaking` calls the change compatible.
    before = f"x://s/{{{operator}{old_expression}}}"
    after = f"x://s/{{{operator}{old_expression},b}}"
    found = _categories(
        _snapshot([], [_with(TEMPLATE, uriTemplate=before, **{"x-mcp-codegen-schema": None})]),
        _snapshot([], [_with(TEMPLATE, uriTemplate=after, **{"x-mcp-codegen-schema": None})]),
    )
    compatible = BREAKING not in {c for c, _ in found}
    old, new = UriTemplate.parse(before), UriTemplate.parse(after)
    kept = True
    for value in VALUES:
        uri = old.expand({"a": value})
        kept &= old.match(uri) is None or new.match(uri) == old.match(uri)
    for pair in itertools.product(VALUES[:4], repeat=2):
        uri = old.expand({"a": ",".join(pair)})
        kept &= old.match(uri) is None or new.match(uri) == old.match(uri)
    if compatible:
        assert kept, found
