"""Is the generated package current? Answered from the build manifest in milliseconds,
importing none of the heavy generator stages, so `check` suits a pre-commit hook."""

from __future__ import annotations

from pathlib import Path

from codegen.config import load_config
from codegen.fingerprint import input_digests
from codegen.manifest import outputs_match, read_manifest
from codegen.provenance import sha256_text

HANDLERS_MODULE = "handlers.py"


def is_fresh(root: Path) -> bool:
    """True only when the manifest proves the package current: same inputs, generated
    files untouched, and the handler module needing no signature update. False means
    "run the pipeline to find out", never "stale" by itself."""
    config = load_config(root)
    previous = read_manifest(config.package_dir)
    if previous is None or previous.inputs != input_digests(config):
        return False
    if not outputs_match(config.package_dir, previous.outputs):
        return False
    try:
        current = (config.package_dir / HANDLERS_MODULE).read_text(encoding="utf-8")
    except OSError:
        return False
    if sha256_text(current) == previous.handlers_sha256:
        return True
    from codegen.merge import MergeConflict, merge  # the user edited bodies since the build

    try:
        return merge(current, previous.handler_spec()).text == current
    except MergeConflict:
        return False
