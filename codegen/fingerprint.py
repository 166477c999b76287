"""Digests of everything a build reads, named the way the provenance headers print them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from codegen import __version__
from codegen.config import Config
from codegen.provenance import sha256_text
from codegen.resources import data_dir
from codegen.specs import get_revision
from codegen.tools import find_tool_files, tool_label

_PACKAGE = Path(__file__).resolve().parent


@cache
def generator_fingerprint() -> str:
    """The generator's own code and what it reads to build: a changed template or module
    (even without a version bump, as in a checkout) makes every earlier build stale. The
    same set of files whether installed or in a checkout, so both agree on a fresh build;
    the scaffold templates are not in it, since they never shape a build."""
    templates, specs = data_dir("templates"), data_dir("specs")
    files = [
        *sorted(_PACKAGE.glob("*.py")),
        *sorted((templates / "package").glob("*")),
        *sorted((templates / "runtime").glob("*.py")),
        *sorted(specs.glob("*.toml")),
    ]
    digest = [__version__]
    digest += [f"{path.parent.name}/{path.name}:{sha256_text(path.read_bytes())}" for path in files]
    return sha256_text("\n".join(digest))


def input_digests(config: Config) -> dict[str, str]:
    inputs = {
        "mcp-codegen": generator_fingerprint(),
        "pyproject.toml": sha256_text(config.pyproject.read_bytes()),
    }
    for path in find_tool_files(config.root, config.tool_globs):
        inputs[tool_label(config.root, path)] = sha256_text(path.read_bytes())
    for revision in config.revisions:
        inputs[f"protocol {revision}"] = get_revision(revision).sha256
    return inputs
