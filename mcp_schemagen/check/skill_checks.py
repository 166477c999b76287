"""Checks of the project's skills (load/skills.py), each a ``file#/pointer`` diagnostic
that says how to fix it: the front matter's fields as the Agent Skills format defines
them (https://agentskills.io/specification), names (valid, equal to the folder's, unique
in the server's listing), the SEP-2640 per-skill limits, and relative links between a
skill's Markdown files that lead to no file of the skill or out of it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from posixpath import normpath
from typing import Any
from urllib.parse import unquote

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.load import skills as skill_files
from mcp_schemagen.load.skills import SkillFile, SkillFolder

# The URI authority (the first folder under skills/): clients parse it as a host name,
# which they may lowercase or refuse when it holds other characters.
AUTHORITY_RULE = re.compile(r"[a-z0-9._~-]+")
# The Agent Skills format's bounds of its fields.
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
NAME_RULE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
RESERVED_METADATA = "io.modelcontextprotocol/"
KNOWN_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")

# [text](target "title") and ![alt](target), and reference definitions "[id]: target".
_INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*(?:<([^>]*)>|([^)\s]+))(?:\s+[\"'(][^)]*)?\s*\)")
# HTML a link or an image may hold too.
_HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def check_skills(skills: Sequence[SkillFolder]) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    first_of: dict[str, SkillFolder] = {}
    authorities: set[str] = set()
    for skill in skills:
        authority = skill.skill_path.split("/", 1)[0]
        if not AUTHORITY_RULE.fullmatch(authority) and authority not in authorities:
            authorities.add(authority)
            problems.append(
                error(
                    skill.label,
                    "",
                    f"the folder skills/{authority} is the host part of its skills' skill://"
                    " URIs, which clients may lowercase or refuse: name it with lowercase"
                    " letters, digits, '-', '.', '_' or '~'",
                )
            )
        problems += frontmatter_problems(skill)
        problems += size_problems(skill)
        problems += link_problems(skill)
        name = skill.frontmatter.get("name") if isinstance(skill.frontmatter, dict) else None
        if isinstance(name, str):
            earlier = first_of.setdefault(name, skill)
            if earlier is not skill:
                problems.append(
                    error(
                        skill.label,
                        "/name",
                        f"two skills are named {name!r} ({earlier.label} is the other); clients"
                        " pick skills by name, so rename one (and its folder)",
                    )
                )
    return problems


def frontmatter_problems(skill: SkillFolder) -> list[Diagnostic]:
    matter = skill.frontmatter
    if not isinstance(matter, dict):
        return []  # load/skills.py reported why it could not be read
    label = skill.label
    found: list[Diagnostic] = []
    name = matter.get("name")
    if "name" not in matter:
        found.append(error(label, "", f"missing name: add 'name: {skill.folder_name}'"))
    elif not isinstance(name, str):
        found.append(error(label, "/name", "must be a string (the skill's folder name)"))
    else:
        found += _name_problems(skill, name)
    description = matter.get("description")
    if "description" not in matter:
        found.append(
            error(label, "", "missing description: add what the skill does and when to use it")
        )
    elif not isinstance(description, str) or not description.strip():
        found.append(error(label, "/description", "must be a non-empty string"))
    elif len(description) > MAX_DESCRIPTION:
        found.append(
            error(
                label,
                "/description",
                f"is {len(description)} characters, more than {MAX_DESCRIPTION}; shorten it and"
                " move the detail into the body of SKILL.md",
            )
        )
    for field in ("license", "allowed-tools"):
        if field in matter and not isinstance(matter[field], str):
            found.append(error(label, "/" + field, "must be a string"))
    compatibility = matter.get("compatibility")
    if "compatibility" in matter and (
        not isinstance(compatibility, str) or not 1 <= len(compatibility) <= MAX_COMPATIBILITY
    ):
        found.append(
            error(
                label, "/compatibility", f"must be a string of 1 to {MAX_COMPATIBILITY} characters"
            )
        )
    if "metadata" in matter:
        found += _metadata_problems(label, matter["metadata"])
    for field in matter:
        if field not in KNOWN_FIELDS:
            found.append(
                warning(
                    label,
                    pointer_join("", field),
                    f"is not a field of the Agent Skills format ({', '.join(KNOWN_FIELDS)});"
                    " it is published as written, but put your own keys under metadata:",
                )
            )
    return found


def _name_problems(skill: SkillFolder, name: str) -> list[Diagnostic]:
    label = skill.label
    if not 1 <= len(name) <= MAX_NAME or not NAME_RULE.fullmatch(name):
        return [
            error(
                label,
                "/name",
                f"{name!r} is not a valid skill name: 1 to {MAX_NAME} characters of lowercase"
                " letters, digits and single hyphens, not starting or ending with a hyphen",
            )
        ]
    if name != skill.folder_name:
        return [
            error(
                label,
                "/name",
                f"{name!r} differs from its folder's name {skill.folder_name!r}; a skill's name"
                " must equal its folder's (it is the last segment of its skill:// URI): rename"
                " one of them",
            )
        ]
    return []


def _metadata_problems(label: str, metadata: Any) -> list[Diagnostic]:
    if not isinstance(metadata, dict):
        return [error(label, "/metadata", "must be a mapping of string keys to string values")]
    found = [
        error(label, pointer_join("/metadata", key), "must be a string (quote it in YAML)")
        for key, value in metadata.items()
        if not isinstance(value, str)
    ]
    found += [
        warning(
            label,
            pointer_join("/metadata", key),
            f"keys starting with {RESERVED_METADATA!r} are reserved for MCP extensions"
            " (SEP-2640), and hosts ignore those they do not know; choose another key",
        )
        for key in metadata
        if isinstance(key, str) and key.startswith(RESERVED_METADATA)
    ]
    return found


def size_problems(skill: SkillFolder) -> list[Diagnostic]:
    found = []
    most, largest = skill_files.MAX_SKILL_FILES, skill_files.MAX_SKILL_BYTES
    if len(skill.files) > most:
        found.append(
            error(
                skill.label,
                "",
                f"the skill has {len(skill.files)} files, more than the {most} every"
                " host must accept (SEP-2640, Limits); split it into several skills",
            )
        )
    total = sum(len(f.data) for f in skill.files)
    if total > largest:
        found.append(
            error(
                skill.label,
                "",
                f"the skill's files total {total:,} bytes, more than the {largest:,} every"
                " host must accept (SEP-2640, Limits); move large files out of the skill",
            )
        )
    return found


def link_problems(skill: SkillFolder) -> list[Diagnostic]:
    """Relative links of the skill's Markdown files that lead to no file or folder of the
    skill (resolved from the linking file's folder, as a file system would)."""
    paths = {f.path for f in skill.files}
    folders = {p.rsplit("/", i)[0] for p in paths for i in range(1, p.count("/") + 1)}
    found = []
    for file in skill.files:
        if not file.path.lower().endswith(".md"):
            continue
        for line, target in markdown_links(file):
            resolved = _resolve(file.path, target)
            where = skill.label_of(file)
            if resolved is None:
                found.append(
                    error(
                        where,
                        "",
                        f"line {line}: the link {target!r} leads outside the skill's folder;"
                        " a host reads only the skill's own files: copy what it needs into the"
                        " skill",
                    )
                )
            elif resolved and resolved not in paths and resolved not in folders:
                found.append(
                    error(
                        where,
                        "",
                        f"line {line}: the link {target!r} names {resolved!r}, no file of the"
                        " skill; add the file or fix the link (relative to this file's folder)",
                    )
                )
    return found


def markdown_links(file: SkillFile) -> list[tuple[int, str]]:
    """(line, target) of each relative link of a Markdown file (inline, reference, or an
    HTML ``href``/``src``), outside code blocks and code spans."""
    try:
        text = file.data.decode("utf-8")
    except UnicodeDecodeError:
        return []
    links = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        plain = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        targets = [m.group(1) or m.group(2) for m in _INLINE_LINK.finditer(plain)]
        targets += [m.group(1) for m in _HTML_LINK.finditer(plain)]
        reference = _REFERENCE.match(plain)
        if reference:
            targets.append(reference.group(1))
        for target in targets:
            if _SCHEME.match(target) or target.startswith(("#", "/", "//")):
                continue
            links.append((number, target))
    return links


def _resolve(linking: str, target: str) -> str | None:
    """The skill-relative path ``target`` names from the file ``linking``; None outside."""
    bare = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not bare:
        return linking
    folder = linking.rsplit("/", 1)[0] if "/" in linking else ""
    joined = normpath(f"{folder}/{bare}" if folder else bare)
    if joined == ".." or joined.startswith("../"):
        return None
    return "" if joined == "." else joined
