"""The handler module of a build: read, merged or created; and the record of what the
build wanted of it, which lets ``check`` tell a body edit (fresh) from a stale signature."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import BuildError, error
from mcp_schemagen.handlers.spec import HandlerModuleSpec, HandlerSpec, MergeConflict
from mcp_schemagen.handlers.stubs import render_new
from mcp_schemagen.manifest import HANDLERS_MODULE, Manifest
from mcp_schemagen.provenance import sha256_text
from mcp_schemagen.write import OutputFile

EXIT_CONFLICT = 3


def handlers_file(
    package_dir: Path, spec: HandlerModuleSpec, previous: Manifest | None = None
) -> tuple[OutputFile, list[str]]:
    """The handler module as this build leaves it, and the merge's warnings; a
    ``BuildError`` (exit 3) when it cannot be updated without touching user code.

    When the previous build wanted the same of the module and left it as it is now, the
    merge would change nothing: the module and that build's warnings are reused."""
    path = package_dir / HANDLERS_MODULE
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return OutputFile(path, render_new(spec)), []
    if (
        previous is not None
        and previous.handlers == spec_to_json(spec)
        and previous.handlers_sha256 == sha256_text(existing)
    ):
        return OutputFile(path, existing), list(previous.handler_warnings)
    from mcp_schemagen.handlers import merge

    try:
        result = merge(existing, spec)
    except MergeConflict as conflict:
        raise BuildError(
            [
                error(
                    str(path),
                    "",
                    f"cannot update the handler module: {conflict}; nothing was written",
                )
            ],
            exit_code=EXIT_CONFLICT,
        ) from None
    return OutputFile(path, result.text), result.warnings


def is_current(text: str, spec: HandlerModuleSpec) -> bool:
    """Whether a merge would leave ``text`` as it is (the user edited only bodies)."""
    from mcp_schemagen.handlers import merge

    try:
        return merge(text, spec).text == text
    except MergeConflict:
        return False


def spec_to_json(spec: HandlerModuleSpec) -> dict[str, Any]:
    return {
        "docstring": spec.docstring,
        "managed_imports": spec.managed_imports,
        "handlers": [asdict(h) for h in spec.handlers],
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
