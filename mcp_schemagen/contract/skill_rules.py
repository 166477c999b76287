"""The rules for skills (the Skills extension, SEP-2640), paired by the uri of their
SKILL.md: the entry skills/list publishes (front matter, every file's digest and size) is
what a host verifies its reads against and binds a user's approval to, so

- a skill gone, or a file of it gone, breaks callers (skills/get, resources/read fail);
- a file's content changed (its digest), or a file added, breaks result consumers: a
  host holding the old entry fails verification and must ask for approval again;
- ``allowed-tools`` changed is a safety change (what the skill may run unasked);
- any other front matter field changed is compatible (its SKILL.md's digest, which
  changes with it, is the breaking part, said on its own line).
"""

from __future__ import annotations

from typing import Any

from mcp_schemagen.contract.changes import Category, Change
from mcp_schemagen.contract.snapshot import Definition
from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.runtime.protocol import Revision

SKILLS_PREFIX = "skills/"
_SCHEME = "skill://"


def publish(revision: Revision, definition: dict[str, Any]) -> dict[str, Any]:
    """A skill's entry as skills/list sends it: as written, in the revisions that serve
    the extension, nothing in the others."""
    return definition if revision.skill_methods else {}


def removed(old: Definition, renamed_to: str | None) -> list[Change]:
    said = (
        f"skill {old.definition['uri']!r} removed: skills/get and resources/read of its files fail"
    )
    if renamed_to:
        said += f" (moved to {renamed_to!r}? the same front matter)"
    return [Change(old.file, "", Category.BREAKING_CALLERS, said)]


def added(new: Definition) -> list[Change]:
    return [Change(new.file, "", Category.COMPATIBLE, f"skill {new.definition['uri']!r} added")]


def changed(old: Definition, new: Definition) -> list[Change]:
    return [*_files(old, new), *_frontmatter(old, new)]


def _label(uri: str) -> str:
    return SKILLS_PREFIX + uri.removeprefix(_SCHEME)


def _files(old: Definition, new: Definition) -> list[Change]:
    before = _by_uri(old.definition)
    after = _by_uri(new.definition)
    changes = []
    for uri, entry in before.items():
        if uri not in after:
            said = f"file {uri!r} removed from the skill: resources/read of it fails"
            changes.append(Change(_label(uri), "", Category.BREAKING_CALLERS, said))
        elif after[uri]["digest"] != entry["digest"]:
            said = (
                f"content changed ({entry['digest'][:15]}… → {after[uri]['digest'][:15]}…):"
                " hosts holding the skill's entry fail verification of it and ask for"
                " approval again"
            )
            changes.append(Change(_label(uri), "", Category.BREAKING_RESULTS, said))
    for uri in after:
        if uri not in before:
            said = (
                f"file {uri!r} added to the skill: its set of files changed, so hosts ask for"
                " approval again"
            )
            changes.append(Change(_label(uri), "", Category.BREAKING_RESULTS, said))
    return changes


def _frontmatter(old: Definition, new: Definition) -> list[Change]:
    before = old.definition.get("frontmatter") or {}
    after = new.definition.get("frontmatter") or {}
    changes = []
    for field in dict.fromkeys([*before, *after]):
        if before.get(field) == after.get(field):
            continue
        if field not in after:
            said = f"front matter {field!r} removed"
        elif field not in before:
            said = f"front matter {field!r} added"
        else:
            said = f"front matter {field!r} changed"
        category = Category.COMPATIBLE
        if field == "allowed-tools":
            category = Category.SAFETY
            said += ": the tools the skill may use unasked changed; hosts must ask again"
        changes.append(Change(new.file, pointer_join("", field), category, said))
    return changes


def _by_uri(definition: dict[str, Any]) -> dict[str, dict[str, Any]]:
    files = definition.get("resources")
    if not isinstance(files, list):
        return {}
    return {f["uri"]: f for f in files if isinstance(f, dict) and isinstance(f.get("uri"), str)}
