"""Is the generated package current? Answered from the build manifest in milliseconds,
importing none of the heavy generator stages, so `check` suits a pre-commit hook."""

from __future__ import annotations

from pathlib import Path

from mcp_schemagen.load.config import load_config
from mcp_schemagen.record.fingerprint import input_digests
from mcp_schemagen.record.manifest import HANDLERS_MODULE, Manifest, outputs_match, read_manifest
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
