"""The handler module of a build: read, merged or created; and the record of what the
build wanted of it, which lets ``check`` tell a body edit (fresh) from a stale signature."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import BuildError, error
from mcp_schemagen.handlers.spec import HandlerModuleSpec, HandlerSpec, MergeConflict, marker_key
from mcp_schemagen.handlers.splice import spliced
from mcp_schemagen.handlers.stubs import render_new
from mcp_schemagen.record.manifest import HANDLERS_MODULE, Manifest
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.provenance import sha256_text

EXIT_CONFLICT = 3


def handlers_file(
    package_dir: Path, spec: HandlerModuleSpec, shown: str, previous: Manifest | None = None
) -> tuple[OutputFile, list[str]]:
    """The handler module as this build leaves it, and the merge's warnings; a
    ``BuildError`` (exit 3) when it cannot be updated without touching user code.
    ``shown`` names the module in diagnostics (relative to the project, like tool files).

    The merge works on LF text; a module written with CRLF line endings gets them back.
    When the previous build wanted the same of the module and left it as it is now, the
    merge would change nothing: the module and that build's warnings are reused."""
    path = package_dir / HANDLERS_MODULE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return OutputFile(path, render_new(spec)), []

    def conflict(message: str, doing: str = "update") -> BuildError:
        # "nothing was written" is the command's last line, said once for every error
        return BuildError(
            [error(shown, "", f"cannot {doing} the handler module: {message}")],
            exit_code=EXIT_CONFLICT,
        )

    try:
        existing = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise conflict(
            f"it is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}). "
            "Python source is UTF-8: convert it (e.g. `iconv -f latin1 -t utf-8`) and build again",
            "read",
        ) from None
    recorded = spec_to_json(spec)
    if previous is not None and previous.handlers_sha256 == sha256_text(existing):
        if previous.handlers == recorded:
            return OutputFile(path, existing), list(previous.handler_warnings)
        # Left as the previous build wrote it, with no warnings: an edit that changed only
        # some handlers' parameters is spliced in without loading libcst (same bytes).
        fast = (
            None
            if previous.handler_warnings
            else spliced(existing, previous.handlers, spec, recorded)
        )
        if fast is not None:
            return OutputFile(path, fast), []
    # libcst is loaded only when a merge is needed.
    from mcp_schemagen.handlers.merge import merge

    lf = existing.replace("\r\n", "\n")
    try:
        result = merge(lf, spec, previous_digests(previous))
    except MergeConflict as failure:
        raise conflict(str(failure), "read" if failure.unreadable else "update") from None
    if result.text == lf:
        return OutputFile(path, existing), result.warnings  # byte for byte, endings and all
    return OutputFile(path, result.text.replace("\n", line_ending(existing))), result.warnings


def previous_digests(previous: Manifest | None) -> dict[str, str]:
    """Each tool's inputSchema (each prompt's arguments) digest as the previous build
    recorded it, by marker (none before records held them): the evidence of a rename."""
    if previous is None:
        return {}
    recorded = previous.handlers.get("handlers", [])
    return {
        marker_key(h.get("kind", "tool"), h["tool"]): h["schema_digest"]
        for h in recorded
        if isinstance(h, dict) and h.get("schema_digest")
    }


def line_ending(text: str) -> str:
    """The line ending most of ``text``'s lines use: CRLF or LF."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def is_current(text: str, spec: HandlerModuleSpec) -> bool:
    """Whether a merge would leave ``text`` as it is (the user edited only bodies)."""
    from mcp_schemagen.handlers.merge import merge

    lf = text.replace("\r\n", "\n")
    try:
        return merge(lf, spec).text == lf
    except MergeConflict:
        return False


def spec_to_json(spec: HandlerModuleSpec) -> dict[str, Any]:
    return {
        "docstring": spec.docstring,
        "managed_imports": spec.managed_imports,
        # `body` only where set, so the records of projects without imports stay as they were
        "handlers": [
            {k: v for k, v in asdict(h).items() if k != "body" or v is not None}
            for h in spec.handlers
        ],
        "type_names": None if spec.type_names is None else sorted(spec.type_names),
    }


def spec_from_json(document: dict[str, Any]) -> HandlerModuleSpec:
    return HandlerModuleSpec(
        docstring=document["docstring"],
        managed_imports=document["managed_imports"],
        handlers=tuple(HandlerSpec(**h) for h in document["handlers"]),
        type_names=(
            None if document.get("type_names") is None else frozenset(document["type_names"])
        ),
    )
