"""One definition as its author wrote it, of any kind, and where it came from: what load
reads, check judges, compile turns into IR and `breaking` compares (contract/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Source:
    """One tool, prompt, resource, resource template (or any later kind) as authored."""

    kind: str  # the name of its row in kinds.KINDS: "tool", "prompt", "resource", ...
    file: str  # path relative to the project root, as printed in diagnostics
    pointer: str  # JSON pointer of the definition inside its file
    definition: dict[str, Any]

    @property
    def name(self) -> str | None:
        name = self.definition.get("name")
        return name if isinstance(name, str) else None

    @property
    def is_template(self) -> bool:
        return "uriTemplate" in self.definition

    @property
    def key(self) -> str:
        """A resource's URI or a template's URI template, which names its reader's marker."""
        return str(self.definition.get("uriTemplate", self.definition.get("uri")))
