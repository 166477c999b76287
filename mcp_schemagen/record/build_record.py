"""The build record (manifest.py's `Manifest`) of one build, made from the Project and
the files the build plans, and the files an earlier build made that this one does not."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_schemagen.compile.project import Project
from mcp_schemagen.record.manifest import Manifest
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.provenance import carries_header, sha256_text


def build_record(
    project: Project,
    files: Sequence[OutputFile],
    handlers: OutputFile,
    handler_spec: dict[str, Any],
    handler_warnings: Sequence[str],
    unformatted: dict[str, str],
) -> Manifest:
    """``files``: the generated files (handlers not among them); ``handler_spec``: what
    the handler module must look like, as JSON; ``unformatted``: render's digests."""
    package_dir = project.server.package_dir
    return Manifest(
        inputs=dict(project.inputs),
        outputs={
            f.path.relative_to(package_dir).as_posix(): sha256_text(f.text)
            for f in files
            if f.path.is_relative_to(package_dir)
        },
        handlers_sha256=sha256_text(handlers.text),
        handlers=handler_spec,
        handler_warnings=tuple(handler_warnings),
        inventory=project.inventory,
        unformatted=unformatted,
        # An MCP Apps view's declarations, beside its HTML in the project.
        project_outputs={
            f.path.relative_to(project.server.root).as_posix(): sha256_text(f.text)
            for f in files
            if not f.path.is_relative_to(package_dir)
        },
    )


def stale_files(
    package_dir: Path, previous: Manifest | None, record: Manifest, root: Path
) -> list[Path]:
    """The files the previous build made that this one does not, if they are still the
    generator's (they carry its header): to be removed. ``root``: the project's folder,
    which the outputs beside the package are relative to."""
    if previous is None:
        return []
    return sorted(
        [
            *(
                package_dir / relative
                for relative in previous.outputs
                if relative not in record.outputs and carries_header(package_dir / relative)
            ),
            *(
                root / relative
                for relative in previous.project_outputs
                if relative not in record.project_outputs and carries_header(root / relative)
            ),
        ]
    )
