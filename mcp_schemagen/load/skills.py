"""The project's skills (the Skills extension, SEP-2640): every folder under ``skills/``
that holds a ``SKILL.md`` is a skill, its files are every regular file below it (a nested
skill's files included, as the SEP's complete manifest requires), read as bytes.

Only what can be served as it is on disk is read: a symbolic link (to a file or a folder)
is refused rather than followed, so no file from outside the skill's folder is ever
published; names starting with ``.`` (editor and system files) are left out. The front
matter is parsed here (YAML between ``---`` lines at the top of ``SKILL.md``); what its
fields must be is check/skill_checks.py's business.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error
from mcp_schemagen.load.tools import file_name_problem, not_json, parse_bytes

SKILLS_FOLDER = "skills"
SKILL_FILE = "SKILL.md"
_FENCE = "---"
# SEP-2640 "Limits": what every conforming host accepts of one skill (check/skill_checks.py
# reports a skill beyond them); a file larger than the whole bound is never read at all.
MAX_SKILL_FILES = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class SkillFile:
    path: str  # relative to the skill's folder, "/"-separated ("references/FORMS.md")
    data: bytes


@dataclass(frozen=True)
class SkillFolder:
    skill_path: str  # relative to skills/, "/"-separated ("acme/billing/refunds")
    label: str  # its SKILL.md as diagnostics name it ("skills/acme/billing/refunds/SKILL.md")
    frontmatter: Any  # the parsed front matter (None when it could not be read)
    files: tuple[SkillFile, ...]  # SKILL.md and every other file, sorted by path

    @property
    def folder_name(self) -> str:
        return self.skill_path.rsplit("/", 1)[-1]

    def label_of(self, file: SkillFile) -> str:
        return f"{SKILLS_FOLDER}/{self.skill_path}/{file.path}"


def skills_root(root: Path) -> Path:
    return root / SKILLS_FOLDER


def skill_files_in(root: Path) -> list[Path]:
    """Every regular file under skills/ that a build reads (for the build record's input
    digests: an edited skill file makes the package stale)."""
    found, _ = _walk(skills_root(root))
    return [skills_root(root) / name for name in found]


def read_skills(root: Path) -> tuple[list[SkillFolder], list[Diagnostic]]:
    """The skills under ``root/skills`` in path order, and the problems reading them."""
    folder = skills_root(root)
    if not folder.is_dir() or folder.is_symlink():
        problems = []
        if folder.is_symlink():
            problems.append(error(SKILLS_FOLDER, "", _LINK_MESSAGE))
        return [], problems
    names, problems = _walk(folder)
    contents: dict[str, bytes] = {}
    for name in names:
        size = (folder / name).stat().st_size
        if size > MAX_SKILL_BYTES:
            message = (
                f"the file is {size:,} bytes, more than the {MAX_SKILL_BYTES:,} every host"
                " accepts of a whole skill (SEP-2640, Limits); keep it out of skills/"
            )
            problems.append(error(f"{SKILLS_FOLDER}/{name}", "", message))
            continue
        contents[name] = (folder / name).read_bytes()
    skills, found = folders_of(contents)
    return skills, problems + found


def folders_of(files: Mapping[str, bytes]) -> tuple[list[SkillFolder], list[Diagnostic]]:
    """The skills among ``files`` (content by "/"-separated path under skills/, read from
    disk or from a git revision), and a file in no skill's folder as a problem."""
    names = sorted(files)
    skill_paths = sorted(
        name.rsplit("/", 1)[0] for name in names if name.endswith("/" + SKILL_FILE)
    )
    problems: list[Diagnostic] = []
    skills: list[SkillFolder] = []
    for skill_path in skill_paths:
        prefix = skill_path + "/"
        own = tuple(
            SkillFile(name[len(prefix) :], files[name]) for name in names if name.startswith(prefix)
        )
        label = f"{SKILLS_FOLDER}/{skill_path}/{SKILL_FILE}"
        skill_md = next(f for f in own if f.path == SKILL_FILE)
        frontmatter, found = parse_frontmatter(skill_md.data, label)
        problems += found
        skills.append(SkillFolder(skill_path, label, frontmatter, own))
    for name in names:
        if not any(name.startswith(s + "/") for s in skill_paths):
            problems.append(
                error(
                    f"{SKILLS_FOLDER}/{name}",
                    "",
                    "not inside a skill: each folder under skills/ that is a skill holds a"
                    f" {SKILL_FILE}; move the file into a skill's folder or add its {SKILL_FILE}",
                )
            )
    return skills, problems


def parse_frontmatter(data: bytes, label: str) -> tuple[Any, list[Diagnostic]]:
    """The front matter of a SKILL.md (None when it cannot be read) and its problems."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [error(label, "", f"not UTF-8 text: {exc}; save it as UTF-8")]
    lines = text.removeprefix("\ufeff").splitlines()  # a byte order mark is no content
    if not lines or lines[0].strip() != _FENCE:
        return None, [error(label, "", _NO_FRONTMATTER)]
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == _FENCE), None)
    if end is None:
        return None, [error(label, "", _NO_FRONTMATTER)]
    block = "\n".join(lines[1:end]).encode("utf-8")
    document, problems = parse_bytes(block, label, as_json=False)
    if problems:
        # parse_bytes counts lines from the front matter's first line, the file's second.
        said = [
            error(p.file, p.pointer, f"front matter (from line 2): {p.message}") for p in problems
        ]
        return None, said
    if not isinstance(document, dict):
        message = "the front matter must be a YAML mapping of fields (name: ..., description: ...)"
        return None, [error(label, "", message)]
    json_problems = not_json(document, label, "")
    return (None if json_problems else document), json_problems


_NO_FRONTMATTER = (
    f"{SKILL_FILE} must begin with YAML front matter between '---' lines (line 1 '---',"
    " then name: and description:, then '---'), as the Agent Skills format defines"
)
_LINK_MESSAGE = (
    "is a symbolic link; skills are served exactly as their files are, and a link could"
    " publish a file from outside the skill: copy the file into the skill instead"
)


def _walk(folder: Path) -> tuple[list[str], list[Diagnostic]]:
    """Every regular file under ``folder`` by its "/"-separated path, sorted, without
    following links; a link or a special file is a problem, never read."""
    found: list[str] = []
    problems: list[Diagnostic] = []
    if not folder.is_dir() or folder.is_symlink():
        return found, problems
    for current, dirs, files in os.walk(folder, followlinks=False):
        here = Path(current)
        relative = here.relative_to(folder).as_posix()
        prefix = "" if relative == "." else relative + "/"
        for name in sorted(dirs):
            if (here / name).is_symlink():
                problems.append(error(f"{SKILLS_FOLDER}/{prefix}{name}", "", _LINK_MESSAGE))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (here / d).is_symlink())
        for name in sorted(files):
            if name.startswith("."):
                continue
            mode = os.lstat(here / name).st_mode
            label = f"{SKILLS_FOLDER}/{prefix}{name}"
            named = file_name_problem(label)  # a name becomes a URI and is printed
            if named is not None:
                problems.append(error(label, "", named))
            elif stat.S_ISLNK(mode):
                problems.append(error(label, "", _LINK_MESSAGE))
            elif not stat.S_ISREG(mode):
                problems.append(error(label, "", "is not a regular file; remove it"))
            else:
                found.append(prefix + name)
    return sorted(found), problems
