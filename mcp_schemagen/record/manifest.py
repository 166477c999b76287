"""The record of a build, written into the package, that lets `check` answer in
milliseconds when nothing changed: the sha256 of every input and every output.

`check` first compares these digests with the files on disk; only when any differs does
it run the whole pipeline to print the diff. The record never decides freshness alone:
an input it does not list (a new tool file) or an edited output also means "run".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schemagen.render.provenance import sha256_text

MANIFEST_NAME = "_manifest.json"
HANDLERS_MODULE = "handlers.py"  # the one user-owned module; its record is kept here too


@dataclass(frozen=True)
class Manifest:
    inputs: dict[str, str]  # label -> sha256
    outputs: dict[str, str]  # path relative to the package -> sha256
    handlers_sha256: str  # of the handler module as this build left it
    handlers: dict[str, Any]  # the HandlerModuleSpec, as JSON (handlers.file.spec_to_json)
    # What the merge said (orphans kept, say): repeated by a build that reuses the module.
    handler_warnings: tuple[str, ...] = ()
    # Path -> sha256 of the module's text as rendered (before its imports are sorted and it
    # is formatted): a later build rendering the same text takes the module from disk, when
    # it is still this build's output.
    unformatted: dict[str, str] = field(default_factory=dict)
    # What the package serves, by kind ("tools", "prompts", "resources"): the summary an
    # up-to-date build prints without running a stage (a resource read from a file has
    # no handler to count).
    inventory: dict[str, int] = field(default_factory=dict)
    # Outputs outside the package, by path relative to the project (the TypeScript
    # declarations beside an MCP Apps view's HTML) -> sha256.
    project_outputs: dict[str, str] = field(default_factory=dict)

    def reusable(self, package_dir: Path, relative: str, unformatted: str) -> str | None:
        """The formatted module this build wrote from exactly ``unformatted``, if it is
        still on disk unchanged."""
        if self.unformatted.get(relative) != sha256_text(unformatted):
            return None
        try:
            text = (package_dir / relative).read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None
        return text if sha256_text(text) == self.outputs.get(relative) else None

    def to_text(self) -> str:
        document = {
            "comment": "Written by mcp-codegen build; lets `mcp-codegen check` skip work. Do not edit.",
            "inputs": dict(sorted(self.inputs.items())),
            "outputs": dict(sorted(self.outputs.items())),
            "handlers_sha256": self.handlers_sha256,
            "handlers": self.handlers,
            "handler_warnings": list(self.handler_warnings),
            "unformatted": dict(sorted(self.unformatted.items())),
            "inventory": dict(sorted(self.inventory.items())),
        }
        if self.project_outputs:  # a project with no view keeps the record it had
            document["project_outputs"] = dict(sorted(self.project_outputs.items()))
        return json.dumps(document, indent=1, ensure_ascii=True) + "\n"


# What an output path in a manifest may look like: folders and files inside the package,
# no absolute path, no "..", no hidden or drive-relative names. The manifest is read back
# from disk, so it may have been edited; an entry it lists decides what `check` reads and
# what `build` may remove, and must never lead outside the package.
_OUTPUT_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*\Z")


def is_package_path(relative: str) -> bool:
    return bool(_OUTPUT_PATH.match(relative)) and relative not in (MANIFEST_NAME, HANDLERS_MODULE)


def read_manifest(package_dir: Path) -> Manifest | None:
    try:
        document: Any = json.loads((package_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
        manifest = Manifest(
            inputs=dict(document["inputs"]),
            outputs=dict(document["outputs"]),
            handlers_sha256=str(document["handlers_sha256"]),
            handlers=dict(document["handlers"]),
            handler_warnings=tuple(str(w) for w in document.get("handler_warnings", [])),
            inventory={
                str(kind): count
                for kind, count in dict(document.get("inventory", {})).items()
                if type(count) is int
            },
            unformatted=dict(document.get("unformatted", {})),
            project_outputs=dict(document.get("project_outputs", {})),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or damaged: the slow path decides
    if not all(isinstance(r, str) and is_package_path(r) for r in manifest.outputs):
        return None  # edited to point elsewhere: treated as damaged, never followed
    if not all(isinstance(r, str) and _OUTPUT_PATH.match(r) for r in manifest.project_outputs):
        return None  # the same for the outputs beside the package, inside the project
    return manifest


def outputs_match(package_dir: Path, outputs: dict[str, str]) -> bool:
    return not edited_outputs(package_dir, outputs, first_only=True)


def edited_outputs(
    package_dir: Path, outputs: dict[str, str], *, first_only: bool = False
) -> list[str]:
    """The recorded outputs that are not on disk as the build wrote them (sorted)."""
    edited = []
    for relative, digest in sorted(outputs.items()):
        path = package_dir / relative
        if path.is_symlink() or not path.is_file():
            edited.append(relative)  # the build writes regular files; this is not its output
        else:
            try:
                if sha256_text(path.read_bytes()) != digest:
                    edited.append(relative)
            except OSError:
                edited.append(relative)
        if edited and first_only:
            break
    return edited
