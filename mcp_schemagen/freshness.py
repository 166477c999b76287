"""Is the generated package current? Answered from the build manifest in milliseconds,
importing none of the heavy generator stages, so `check` suits a pre-commit hook.

The record answers both ways. Fresh: same inputs, generated files untouched, the handler
module needing no signature update. Stale, without generating (``proven_stale``): the
generator is the one that wrote the record, and an input changed, appeared or went (the
headers of ``_dispatch.py`` and ``types.py`` list every input's digest, so their text
changes with it), or a generated file differs from what the build wrote (the same
generator on the same inputs writes the same bytes); only while the handler module is
readable (else the build's exit 3 and its diagnostic are the answer). Anything else is
"run the pipeline to find out", never a verdict by itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

from mcp_schemagen import GENERATOR_INPUT
from mcp_schemagen.load.config import Config, load_config
from mcp_schemagen.record.fingerprint import input_digests
from mcp_schemagen.record.manifest import (
    HANDLERS_MODULE,
    Manifest,
    edited_outputs,
    outputs_match,
    read_manifest,
)
from mcp_schemagen.render.provenance import sha256_text


def is_fresh(root: Path, *, allow_outside: bool = False) -> bool:
    """True only when the manifest proves the package current: same inputs, generated
    files untouched, and the handler module needing no signature update. False means
    "run the pipeline to find out", never "stale" by itself."""
    return fresh_record(root, allow_outside=allow_outside) is not None


def fresh_record(root: Path, *, allow_outside: bool = False) -> Manifest | None:
    """The build record, when it proves the package current (see is_fresh)."""
    config = load_config(root, allow_outside=allow_outside)
    previous = read_manifest(config.package_dir)
    if previous is None or previous.inputs != input_digests(config):
        return None
    if not outputs_match(config.package_dir, previous.outputs):
        return None
    if not outputs_match(config.root, previous.project_outputs):  # MCP Apps view types
        return None
    try:
        # Bytes: the module's own line endings are part of what the build wrote.
        data = (config.package_dir / HANDLERS_MODULE).read_bytes()
        if sha256_text(data) == previous.handlers_sha256:
            return previous
        current = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None  # the pipeline says what is wrong
    # The user edited the module since the build: loading the merge (libcst) is needed
    # only now, to tell a body edit from a signature that must change.
    from mcp_schemagen.handlers.file import is_current, spec_from_json

    try:
        current_ok = is_current(current, spec_from_json(previous.handlers))
    except Exception:  # a record read from disk may hold anything
        return None  # a damaged record: the slow path, which never reads it, decides
    return previous if current_ok else None


def proven_stale(config: Config) -> list[str]:
    """Why the build record proves the package stale without generating it (one line per
    changed input or edited file), or [] when it proves nothing (no record, a record from
    another generator, a handler module the merge cannot read): then the pipeline decides."""
    previous = read_manifest(config.package_dir)
    if previous is None or not _handlers_readable(config.package_dir, previous):
        return []  # the build stops on an unreadable handler module (exit 3): it says why
    current = input_digests(config)
    # Another generator (an upgrade, an edited template) may write other bytes from the
    # same inputs, or the same bytes from changed ones: only a full build can tell.
    if previous.inputs.get(GENERATOR_INPUT) != current[GENERATOR_INPUT]:
        return []
    reasons = []
    for label in sorted(previous.inputs.keys() | current.keys()):
        if label == GENERATOR_INPUT:
            continue
        before, now = previous.inputs.get(label), current.get(label)
        if before is None:
            reasons.append(f"{label}: new since the last build")
        elif now is None:
            reasons.append(f"{label}: gone since the last build")
        elif before != now:
            reasons.append(f"{label}: changed since the last build")
    if reasons:
        return reasons
    package = config.package_dir
    return [
        f"{_shown(folder / relative, config.root)}: differs from what the build wrote"
        for folder, outputs in (
            (package, previous.outputs),
            (config.root, previous.project_outputs),
        )
        for relative in edited_outputs(folder, outputs)
    ]


def _handlers_readable(package_dir: Path, previous: Manifest) -> bool:
    """The handler module is as the build left it, or still UTF-8 Python that parses (what
    the merge needs to read it). Whether the merge with the new schemas would conflict
    (a helper naming a type a removed tool defined) only a build can tell: `check` says
    stale (exit 1) and that build explains (exit 3)."""
    try:
        data = (package_dir / HANDLERS_MODULE).read_bytes()
        if sha256_text(data) == previous.handlers_sha256:
            return True
        ast.parse(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return False
    return True


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
