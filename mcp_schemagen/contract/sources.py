"""Read a snapshot: the project's files as they are, at a git revision, or a saved
tools/list result. Files are parsed by load/tools.py, so a file reads the same from disk
and from git."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from mcp_schemagen.contract import git
from mcp_schemagen.contract.snapshot import Definition, Snapshot
from mcp_schemagen.diagnostics import BuildError, Diagnostic, Level, error
from mcp_schemagen.load.config import Config
from mcp_schemagen.load.prompts import load_prompts, prompts_in
from mcp_schemagen.load.tools import (
    MAX_FILE_BYTES,
    definitions_of,
    load_tools,
    parse_bytes,
    tools_in,
)

# Each kind the contract covers: its pyproject globs and how a parsed file is read.
# Resources join here (and in rules.KIND_RULES) once the project has them.
Shape = Callable[[Any, str], tuple[list[Any], list[Diagnostic]]]
KINDS: dict[str, tuple[Callable[[Config], tuple[str, ...]], Shape]] = {
    "tools": (lambda config: config.tool_globs, tools_in),
    "prompts": (lambda config: config.prompt_globs, prompts_in),
}


def _definitions(sources: Iterable[Any]) -> list[Definition]:
    return [Definition(s.file, s.pointer, s.definition) for s in sources]


def read_current(config: Config) -> Snapshot:
    """The project as it is on disk; a file the build would refuse stops the comparison."""
    tools, tool_problems, _ = load_tools(
        config.root, config.tool_globs, allow_outside=config.allow_outside
    )
    prompts, prompt_problems = load_prompts(
        config.root, config.prompt_globs, allow_outside=config.allow_outside
    )
    problems = [p for p in tool_problems + prompt_problems if p.level is Level.ERROR]
    if problems:
        raise BuildError(problems)
    kinds = {"tools": _definitions(tools), "prompts": _definitions(prompts)}
    return Snapshot("the working tree", kinds)


def read_revision(config: Config, reference: str) -> Snapshot:
    """The project's definition files at a git revision, read with git (nothing is
    checked out); the project may be a folder inside the repository. Files are chosen by
    the current configuration's globs."""
    revision = git.Revision.open(config.root, reference)
    kinds: dict[str, list[Definition]] = {}
    warnings: list[str] = []
    for kind, (globs, shape) in KINDS.items():
        found: list[Definition] = []
        for file in revision.files(globs(config)):
            label = file.relative
            if file.problem or file.size > MAX_FILE_BYTES:
                said = file.problem or f"{file.size:,} bytes, more than a tool file may hold"
                warnings.append(f"{label}: not read at {reference}: {said}")
                continue
            parsed = parse_bytes(revision.read(file), label, as_json=label.endswith(".json"))
            sources, problems = definitions_of(parsed, label, shape)
            found += _definitions(sources)
            # An old file the build would refuse now is compared without it, and said.
            warnings += [f"{d} (at {reference})" for d in problems if d.level is Level.ERROR]
        kinds[kind] = found
    return Snapshot(reference, kinds, warnings=warnings)


def read_listing(path: Path) -> Snapshot:
    """A saved tools/list (or prompts/list) result of a deployed server: the JSON-RPC
    response, its result, or the bare ``{"tools": [...]}``. Only the kinds it holds are
    compared."""
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
            'not a saved tools/list or prompts/list result: expected {"tools": [...]}, '
            '{"prompts": [...]} or a JSON-RPC response holding one (an existing file is '
            "read as a listing, never as a git revision)"
        )
        raise BuildError([error(label, at, message)])
    kinds: dict[str, list[Definition]] = {}
    for kind, items in listed.items():
        sources, problems = KINDS[kind][1]({kind: items}, label)
        if problems:
            raise BuildError(problems)
        kinds[kind] = [Definition(label, at + s.pointer, s.definition) for s in sources]
    warnings = [
        f"{label}: holds no {kind}/list result: {kind} are not compared"
        for kind in KINDS
        if kind not in listed
    ]
    return Snapshot(label, kinds, published=True, warnings=warnings)
