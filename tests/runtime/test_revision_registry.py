"""The one registry of revisions (mcp_schemagen.runtime.protocol): the same names as the
pinned schema files, in the protocol's order, and every field set it states derived from
that revision's schema.json rather than trusted as typed."""

from __future__ import annotations

import itertools
import tomllib
from typing import Any

import pytest

from mcp_schemagen.runtime import protocol
from mcp_schemagen.runtime.protocol import REVISIONS, Revision
from tests.support.paths import REPO, needs_shared
from tests.support.spec_check import spec


def test_pinned_schema_files_are_exactly_the_registry() -> None:
    table = tomllib.loads((REPO / "specs" / "revisions.toml").read_text(encoding="utf-8"))
    pinned = [entry["name"] for entry in table["revision"]]
    assert pinned == list(protocol.NAMES)


def test_registry_order_is_the_order_of_the_protocols_history() -> None:
    # Dates sort as strings, which is the one place that is allowed to rely on it: the
    # code never does (see test_no_revision_is_chosen_by_string_order).
    assert list(protocol.NAMES) == sorted(protocol.NAMES)
    assert protocol.newest(protocol.NAMES) is REVISIONS[-1]
    assert protocol.newest(reversed(protocol.NAMES[:2])) is REVISIONS[1]
    with pytest.raises(KeyError, match="unknown protocol revisions"):
        protocol.ordered(["1999-01-01"])


def test_only_the_pre_release_is_opt_in() -> None:
    # 2024-10-07 is the first tagged revision but no public client asks for it; the
    # default is every other revision, in the registry's order.
    assert tuple(n for n in protocol.NAMES if n != "2024-10-07") == protocol.DEFAULT_NAMES
    assert REVISIONS[0].name == "2024-10-07" and REVISIONS[0].opt_in


def test_each_revision_subclasses_the_one_before() -> None:
    for older, newer in itertools.pairwise(REVISIONS):
        assert isinstance(newer, type(older)), (older, newer)
    with pytest.raises(AttributeError):
        REVISIONS[0].name = "x"  # type: ignore[misc]


# ------------------------------------------------------------------ facts from schema.json


def _properties(revision: str, definition: str) -> frozenset[str]:
    """The properties a definition declares, with its allOf parts and $ref targets."""
    check = spec(revision)
    node = check._resolve(check.node(definition))
    names: set[str] = set(node.get("properties", {}))
    for part in node.get("allOf", []):
        names |= set(check._resolve(part).get("properties", {}))
    return frozenset(names)


def _property_node(revision: str, definition: str, name: str) -> Any:
    check = spec(revision)
    node = check._resolve(check.node(definition))
    for part in [node, *node.get("allOf", [])]:
        found = check._resolve(part).get("properties", {}).get(name)
        if found is not None:
            return check._resolve(found)
    return None


def _content_blocks(revision: str) -> dict[str, frozenset[str]]:
    """Each content block a tool result may carry, by its ``type`` constant. 2024-10-07's
    result has no content (its toolResult is any JSON value): there the blocks are the
    ones the revision defines at all, the members of a prompt message's content, which
    is what the server puts inside a toolResult."""
    check = spec(revision)
    content = _property_node(revision, "CallToolResult", "content")
    if content is not None:
        union = check._resolve(content["items"])
    else:
        union = _property_node(revision, "PromptMessage", "content")
    blocks: dict[str, frozenset[str]] = {}
    for branch in union.get("anyOf") or union.get("oneOf"):
        target = branch["$ref"].rsplit("/", 1)[-1]
        type_node = _property_node(revision, target, "type")
        blocks[type_node["const"]] = _properties(revision, target)
    return blocks


def _stateless(revision: str) -> bool:
    return not spec(revision).has("InitializeRequest")


def _methods(revision: str) -> frozenset[str]:
    """Client request methods of the tools server's part: what the server must answer."""
    check = spec(revision)
    wanted = {
        "InitializeRequest",
        "PingRequest",
        "ListToolsRequest",
        "CallToolRequest",
        "SetLevelRequest",
        "DiscoverRequest",
    }
    methods = set()
    for name in wanted & check.definitions.keys():
        methods.add(_property_node(revision, name, "method")["const"])
    return frozenset(methods)


FACTS = [
    ("tool_fields", lambda rev: _properties(rev, "Tool")),
    (
        "tool_annotations",
        lambda rev: (
            _properties(rev, "ToolAnnotations") if spec(rev).has("ToolAnnotations") else frozenset()
        ),
    ),
    # 2024-11-05 declares content annotations inline in each block, later ones by $ref;
    # 2024-10-07 has none.
    (
        "annotations",
        lambda rev: frozenset(
            (_property_node(rev, "TextContent", "annotations") or {}).get("properties", ())
        ),
    ),
    (
        "resource_contents",
        lambda rev: (
            _properties(rev, "TextResourceContents") | _properties(rev, "BlobResourceContents")
        ),
    ),
    ("call_result_fields", lambda rev: _properties(rev, "CallToolResult")),
    ("list_result_fields", lambda rev: _properties(rev, "ListToolsResult")),
    (
        "initialize_result_fields",
        lambda rev: _properties(rev, "InitializeResult") if not _stateless(rev) else frozenset(),
    ),
    (
        "progress_fields",
        lambda rev: (
            _properties(rev, "ProgressNotificationParams")
            if spec(rev).has("ProgressNotificationParams")
            else frozenset(_property_node(rev, "ProgressNotification", "params")["properties"])
        ),
    ),
    ("content", _content_blocks),
    ("stateless", _stateless),
    ("methods", _methods),
]


@needs_shared
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f[0])
def test_registry_facts_are_what_the_schema_defines(revision: Revision, fact: Any) -> None:
    attribute, derive = fact
    assert getattr(revision, attribute) == derive(revision.name)


@needs_shared
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_batching_is_allowed_exactly_where_the_schema_has_batch_messages(
    revision: Revision,
) -> None:
    check = spec(revision.name)
    batches = any("Batch" in name for name in check.definitions)
    assert revision.batching == batches
