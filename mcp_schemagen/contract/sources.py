"""Read a snapshot: the project's files as they are, at a git revision, or a saved
tools/list, prompts/list, resources/list or resources/templates/list result. Files are parsed by load/tools.py, so a file reads the same from disk
and from git."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcp_schemagen.compile.skills import compiled_skill
from mcp_schemagen.contract import git
from mcp_schemagen.contract.snapshot import LISTINGS, Definition, Snapshot
from mcp_schemagen.diagnostics import BuildError, Diagnostic, Level, error
from mcp_schemagen.load.config import (
    DEFAULT_PROMPT_GLOBS,
    DEFAULT_RESOURCE_GLOBS,
    DEFAULT_TOOL_GLOBS,
    Config,
)
from mcp_schemagen.load.prompts import load_prompts, prompts_in
from mcp_schemagen.load.resources import load_resources, resources_in
from mcp_schemagen.load.skills import SKILLS_FOLDER, SkillFolder, folders_of, read_skills
from mcp_schemagen.load.tools import (
    MAX_FILE_BYTES,
    definitions_of,
    load_tools,
    parse_bytes,
    tools_in,
)
from mcp_schemagen.source import Source

Shape = Callable[[Any, str], tuple[list[Any], list[Diagnostic]]]


def _resources_of(templates: bool) -> Shape:
    """Resource files mix static resources and templates: each kind takes its own."""

    def shape(document: Any, label: str) -> tuple[list[Source], list[Diagnostic]]:
        sources, problems = resources_in(document, label)
        return [s for s in sources if s.is_template is templates], problems

    return shape


# Each kind the contract covers (named as the field of its list result, as a saved
# listing holds it): its pyproject globs and how a parsed file is read. One entry each in
# rules.KIND_RULES.
KINDS: dict[str, tuple[Callable[[Config], tuple[str, ...]], Shape]] = {
    "tools": (lambda config: config.tool_globs, tools_in),
    "prompts": (lambda config: config.prompt_globs, prompts_in),
    "resources": (lambda config: config.resource_globs, _resources_of(templates=False)),
    "resourceTemplates": (lambda config: config.resource_globs, _resources_of(templates=True)),
}


def _definitions(sources: Iterable[Source]) -> list[Definition]:
    return list(sources)


def read_current(config: Config) -> Snapshot:
    """The project as it is on disk; a file the build would refuse stops the comparison."""
    tools, tool_problems, _ = load_tools(
        config.root, config.tool_globs, allow_outside=config.allow_outside
    )
    prompts, prompt_problems = load_prompts(
        config.root, config.prompt_globs, allow_outside=config.allow_outside
    )
    resources, resource_problems = load_resources(
        config.root, config.resource_globs, allow_outside=config.allow_outside
    )
    skills, skill_problems = read_skills(config.root)
    found = tool_problems + prompt_problems + resource_problems + skill_problems
    problems = [p for p in found if p.level is Level.ERROR]
    if problems:
        raise BuildError(problems)
    kinds = {
        "tools": _definitions(tools),
        "prompts": _definitions(prompts),
        "resources": _definitions(r for r in resources if not r.is_template),
        "resourceTemplates": _definitions(r for r in resources if r.is_template),
        "skills": skill_definitions(skills),
    }
    return Snapshot("the working tree", kinds)


def skill_definitions(folders: Iterable[SkillFolder]) -> list[Definition]:
    """Each skill whose front matter has its name and description, as the entry
    skills/list publishes (keyed by its uri, located at its SKILL.md)."""
    return [
        Source("skill", folder.label, "", compiled_skill(folder).entry)
        for folder in folders
        if isinstance(folder.frontmatter, dict)
        and isinstance(folder.frontmatter.get("name"), str)
        and isinstance(folder.frontmatter.get("description"), str)
    ]


def _skills_at(revision: git.Revision, warnings: list[str]) -> list[Definition]:
    """The skills/ folder at a git revision, read as the build reads it from disk: a
    symbolic link is not read (the build refuses it), a name starting with "." left out."""
    files: dict[str, bytes] = {}
    for file in revision.files([SKILLS_FOLDER + "/**"]):
        relative = file.relative.removeprefix(SKILLS_FOLDER + "/")
        if any(part.startswith(".") for part in relative.split("/")):
            continue
        if file.problem or file.path != revision.prefix + file.relative:
            warnings.append(f"{file.relative}: not read at {revision.reference}: a symbolic link")
            continue
        files[relative] = revision.read(file)
    folders, problems = folders_of(files)
    warnings += [f"{d} (at {revision.reference})" for d in problems if d.level is Level.ERROR]
    return skill_definitions(folders)


def read_revision(config: Config, reference: str) -> Snapshot:
    """The project's definition files at a git revision, read with git (nothing is
    checked out); the project may be a folder inside the repository. Files are chosen by
    the globs of that revision's own pyproject.toml, so a project that moved its files
    since compares the files it had then."""
    revision = git.Revision.open(config.root, reference)
    kinds: dict[str, list[Definition]] = {}
    config, warnings = _config_at(revision, config)
    for kind, (globs, shape) in KINDS.items():
        found: list[Definition] = []
        for file in revision.files(globs(config)):
            label = file.relative
            if file.problem or file.size > MAX_FILE_BYTES:
                said = file.problem or f"{file.size:,} bytes, more than a schema file may hold"
                warnings.append(f"{label}: not read at {reference}: {said}")
                continue
            parsed = parse_bytes(revision.read(file), label, as_json=label.endswith(".json"))
            sources, problems = definitions_of(parsed, label, shape)
            found += _definitions(sources)
            # An old file the build would refuse now is compared without it, and said.
            warnings += [f"{d} (at {reference})" for d in problems if d.level is Level.ERROR]
        kinds[kind] = found
    kinds["skills"] = _skills_at(revision, warnings)
    # Resources and templates share their files: a file's problem is said once.
    return Snapshot(reference, kinds, warnings=list(dict.fromkeys(warnings)))


# The pyproject keys of the globs, with the defaults load/config.py gives them.
_GLOB_DEFAULTS = {
    "tools": DEFAULT_TOOL_GLOBS,
    "prompts": DEFAULT_PROMPT_GLOBS,
    "resources": DEFAULT_RESOURCE_GLOBS,
}


def _config_at(revision: git.Revision, config: Config) -> tuple[Config, list[str]]:
    """Today's configuration with the file globs the revision's pyproject.toml chose; where
    that file is missing or unreadable, today's globs, and a warning that says so."""
    where = f"pyproject.toml at {revision.reference}"
    raw = revision.project_file("pyproject.toml")
    if raw is None:
        return config, [f"{where}: not there; files chosen by today's globs"]
    try:
        section = tomllib.loads(raw.decode("utf-8")).get("tool", {}).get("mcp-codegen")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return config, [f"{where}: not valid TOML ({exc}); files chosen by today's globs"]
    if not isinstance(section, dict):
        return config, [f"{where}: no [tool.mcp-codegen] table; files chosen by today's globs"]
    today = {
        "tools": config.tool_globs,
        "prompts": config.prompt_globs,
        "resources": config.resource_globs,
    }
    chosen, warnings = {}, []
    for key, default in _GLOB_DEFAULTS.items():
        globs = section.get(key, list(default))
        if isinstance(globs, list) and all(isinstance(g, str) for g in globs):
            chosen[key] = tuple(globs)
        else:
            chosen[key] = today[key]
            warnings.append(f"{where}#/tool/mcp-codegen/{key}: not a list of globs; today's used")
    changed = replace(
        config,
        tool_globs=chosen["tools"],
        prompt_globs=chosen["prompts"],
        resource_globs=chosen["resources"],
    )
    return changed, warnings


def read_listing(path: Path) -> Snapshot:
    """A saved tools/list, prompts/list, resources/list or resources/templates/list result
    of a deployed server: the JSON-RPC response, its result, or the bare
    ``{"tools": [...]}``. Only the kinds it holds are compared."""
    label = path.name
    try:
        document = json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BuildError([error(label, "", f"cannot be read as JSON: {exc}")]) from None
    at = ""
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        document, at = document["result"], "/result"
    listed = {
        kind: document[kind]
        for kind in KINDS
        if isinstance(document, dict) and isinstance(document.get(kind), list)
    }
    if not listed:
        message = (
            "not a saved tools/list, prompts/list, resources/list or resources/templates/list"
            ' result: expected {"tools": [...]}, {"prompts": [...]}, {"resources": [...]},'
            ' {"resourceTemplates": [...]} or a JSON-RPC response holding one (an existing'
            " file is read as a listing, never as a git revision)"
        )
        raise BuildError([error(label, at, message)])
    kinds: dict[str, list[Definition]] = {}
    for kind, items in listed.items():
        sources, problems = KINDS[kind][1]({kind: items}, label)
        if problems:
            raise BuildError(problems)
        kinds[kind] = [replace(s, file=label, pointer=at + s.pointer) for s in sources]
    warnings = [
        f"{label}: holds no {LISTINGS[kind][1]} result: {LISTINGS[kind][0]}s are not compared"
        for kind in KINDS
        if kind not in listed
    ]
    return Snapshot(label, kinds, published=True, warnings=warnings)
