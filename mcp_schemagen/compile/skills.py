"""Checked skills -> what the server publishes of them (SEP-2640): each skill's entry
(``uri`` of its SKILL.md, the front matter verbatim, every file's ``uri``, ``digest``
``sha256:{64 lowercase hex}`` of its raw bytes and ``size`` in bytes) and one static
resource per file, read through ``resources/read`` like any file resource.

URIs are ``skill://<skill-path>/<file-path>``, the paths under skills/ percent-encoded
where a character is not allowed in a URI path (RFC 3986). A file's mimeType comes from a
fixed table of suffixes (never the machine's mime database, so builds are the same
everywhere); UTF-8 content is sent as text, anything else as a base64 blob.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mcp_schemagen.check.skill_checks import check_skills
from mcp_schemagen.diagnostics import Diagnostic, error, has_errors, pointer_join
from mcp_schemagen.load.resource_content import is_text_type
from mcp_schemagen.load.skills import SKILL_FILE, SkillFile, SkillFolder, read_skills
from mcp_schemagen.runtime.resources.table import ResourceRow

SCHEME = "skill://"
_MIME_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".py": "text/x-python",
    ".sh": "text/x-shellscript",
    ".js": "text/javascript",
    ".ts": "text/x-typescript",
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
    ".html": "text/html",
    ".css": "text/css",
    ".csv": "text/csv",
    ".xml": "application/xml",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".pdf": "application/pdf",
}


@dataclass(frozen=True)
class CompiledSkill:
    uri: str  # of its SKILL.md
    label: str  # its SKILL.md in the project
    entry: dict[str, Any]  # the Skill entry skills/list and skills/get answer with
    files: tuple[ResourceRow, ...]  # one static resource per file, SKILL.md first


def compile_skills(root: Path) -> tuple[list[CompiledSkill], list[Diagnostic]]:
    """The project's skills, and what reading and checking them found (none compiled
    when that holds an error)."""
    skills, problems = read_skills(root)
    problems += check_skills(skills)
    if has_errors(problems):
        return [], problems
    return [compiled_skill(skill) for skill in skills], problems


def taken_skill_uris(skills: Sequence[CompiledSkill], resources: Sequence[Any]) -> list[Diagnostic]:
    """A resource file whose uri is also a skill file's (CompiledResource rows)."""
    uris = {row["definition"]["uri"]: skill for skill in skills for row in skill.files}
    return [
        error(
            resource.file,
            pointer_join(resource.pointer, "uri"),
            f"{resource.key!r} is also a file of the skill {uris[resource.key].label}; give"
            " the resource another uri (skill:// URIs belong to skills/)",
        )
        for resource in resources
        if resource.key in uris
    ]


def skill_uri(skill_path: str, file_path: str) -> str:
    return SCHEME + quote(f"{skill_path}/{file_path}", safe="/-._~!$&'()*+,;=:@")


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def compiled_skill(skill: SkillFolder) -> CompiledSkill:
    matter: dict[str, Any] = skill.frontmatter
    ordered = sorted(skill.files, key=lambda f: (f.path != SKILL_FILE, f.path))
    uri = skill_uri(skill.skill_path, SKILL_FILE)
    entry = {
        "uri": uri,
        "frontmatter": matter,
        "resources": [
            {
                "uri": skill_uri(skill.skill_path, f.path),
                "digest": digest_of(f.data),
                "size": len(f.data),
            }
            for f in ordered
        ],
    }
    rows = tuple(_resource_row(skill, f, matter) for f in ordered)
    return CompiledSkill(uri, skill.label, entry, rows)


def _resource_row(skill: SkillFolder, file: SkillFile, matter: dict[str, Any]) -> ResourceRow:
    uri = skill_uri(skill.skill_path, file.path)
    suffix = "." + file.path.rsplit(".", 1)[-1].lower() if "." in file.path else ""
    try:
        text: str | None = file.data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    default = "text/plain" if text is not None else "application/octet-stream"
    mime_type = _MIME_TYPES.get(suffix, default)
    if not is_text_type(mime_type):  # an image or a PDF is a blob, whatever its bytes
        text = None
    definition: dict[str, Any] = {"uri": uri, "name": f"{skill.skill_path}/{file.path}"}
    if file.path == SKILL_FILE:  # SEP-2640 "Resource Metadata"
        definition["name"] = matter["name"]
        definition["description"] = matter["description"]
    definition["mimeType"] = mime_type
    item: dict[str, Any] = {"uri": uri, "mimeType": mime_type}
    if text is not None:
        item["text"] = text
    else:
        item["blob"] = base64.b64encode(file.data).decode("ascii")
    return {"definition": definition, "variables": {}, "contents": [item]}
