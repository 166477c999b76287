"""The record of a build, written into the package, that lets `check` answer in
milliseconds when nothing changed: the sha256 of every input and every output.

`check` first compares these digests with the files on disk; only when any differs does
it run the whole pipeline to print the diff. The record never decides freshness alone:
an input it does not list (a new tool file) or an edited output also means "run".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.provenance import sha256_text

MANIFEST_NAME = "_manifest.json"
HANDLERS_MODULE = "handlers.py"  # the one user-owned module; its record is kept here too


@dataclass(frozen=True)
class Manifest:
    inputs: dict[str, str]  # label -> sha256
    outputs: dict[str, str]  # path relative to the package -> sha256
    handlers_sha256: str  # of the handler module as this build left it
    handlers: dict[str, Any]  # the HandlerModuleSpec, as JSON (handlers.file.spec_to_json)

    def to_text(self) -> str:
        document = {
            "comment": "Written by mcp-codegen build; lets `mcp-codegen check` skip work. Do not edit.",
            "inputs": dict(sorted(self.inputs.items())),
            "outputs": dict(sorted(self.outputs.items())),
            "handlers_sha256": self.handlers_sha256,
            "handlers": self.handlers,
        }
        return json.dumps(document, indent=1, ensure_ascii=True) + "\n"


def read_manifest(package_dir: Path) -> Manifest | None:
    try:
        document: Any = json.loads((package_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
        return Manifest(
            inputs=dict(document["inputs"]),
            outputs=dict(document["outputs"]),
            handlers_sha256=str(document["handlers_sha256"]),
            handlers=dict(document["handlers"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or damaged: the slow path decides


def outputs_match(package_dir: Path, outputs: dict[str, str]) -> bool:
    for relative, digest in outputs.items():
        try:
            if sha256_text((package_dir / relative).read_bytes()) != digest:
                return False
        except OSError:
            return False
    return True
