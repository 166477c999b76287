"""Digests of everything a build reads, named the way the provenance headers print them
(GENERATOR_INPUT, compile/project.py, labels the generator's own)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from mcp_schemagen import GENERATOR_INPUT, __version__
from mcp_schemagen.kinds import with_files
from mcp_schemagen.load.config import Config
from mcp_schemagen.load.skills import skill_files_in
from mcp_schemagen.load.specs import get_revision
from mcp_schemagen.load.tools import find_tool_files, tool_label
from mcp_schemagen.package_data import data_dir
from mcp_schemagen.render.provenance import sha256_text

_PACKAGE = Path(__file__).resolve().parents[1]  # mcp_schemagen, not this folder


@cache
def generator_fingerprint() -> str:
    """The generator's own code and what it reads to build: a changed template or module
    (even without a version bump, as in a checkout) makes every earlier build stale. The
    same set of files and labels whether installed or in a checkout, so both agree on a
    fresh build; the scaffold templates are not in it, since they never shape a build."""
    digest = [__version__]
    digest += [f"{label}:{sha256_text(path.read_bytes())}" for label, path in generator_files()]
    return sha256_text("\n".join(digest))


def generator_files() -> list[tuple[str, Path]]:
    """Every file of the generator that shapes a build, with its label: its modules (the
    runtime it copies included) by their path in the package, the package templates and
    the revision pins by folder and name (inside the wheel they sit in the package, in a
    checkout beside it)."""
    templates, specs = data_dir("templates"), data_dir("specs")
    data = [*sorted((templates / "package").glob("*")), *sorted(specs.glob("*.toml"))]
    data_set = set(data)
    modules = [p for p in sorted(_PACKAGE.rglob("*.py")) if p not in data_set]
    return [
        *((path.relative_to(_PACKAGE).as_posix(), path) for path in modules),
        *((f"{path.parent.name}/{path.name}", path) for path in data),
    ]


def input_digests(config: Config) -> dict[str, str]:
    inputs = {
        GENERATOR_INPUT: generator_fingerprint(),
        "pyproject.toml": sha256_text(config.pyproject.read_bytes()),
    }
    for kind in with_files():  # each kind's files, in the table's order
        assert kind.config_key is not None
        globs = config.globs(kind.config_key)
        for path in find_tool_files(config.root, globs, allow_outside=config.allow_outside):
            inputs[tool_label(config.root, path)] = sha256_text(path.read_bytes())
    for path in content_files(config):  # a static resource's content, read at build
        inputs[tool_label(config.root, path)] = sha256_text(path.read_bytes())
    for path in skill_files_in(config.root):  # every file of a skill, published as read
        inputs[tool_label(config.root, path)] = sha256_text(path.read_bytes())
    for revision in config.revisions:
        inputs[f"protocol {revision}"] = get_revision(revision).sha256
    return inputs


def content_files(config: Config) -> list[Path]:
    """The project files resource definitions name as their content (those that exist in
    the project; the build reports the others)."""
    from mcp_schemagen.load.resource_content import content_path
    from mcp_schemagen.load.resources import load_resources
    from mcp_schemagen.runtime.resources.table import FILE_KEY

    sources, _ = load_resources(
        config.root, config.resource_globs, allow_outside=config.allow_outside
    )
    found = set()
    for source in sources:
        if FILE_KEY in source.definition and "uri" in source.definition:
            path, _ = content_path(config.root, source)
            if path is not None:
                found.add(path.resolve())
    return sorted(found, key=lambda p: tool_label(config.root, p))
