"""The user-owned handler module: written once, then kept current with libcst.

(First cut: new modules are rendered; existing ones are left untouched.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class HandlerSpec:
    """What the generator owns of one handler: its name, parameters and return type."""

    function: str  # Python function name
    tool: str  # the tool's name as published
    parameters: str  # source of the parameter list, e.g. "*, city: str, units: Units = 'c'"
    returns: str  # source of the return annotation
    docstring: str | None  # source of a string literal, used for new stubs only


@dataclass(frozen=True)
class HandlerModuleSpec:
    docstring: str  # source of the module docstring literal, for new modules
    managed_imports: str  # the import statement(s) the generator owns, e.g. "from .types import A, B"
    handlers: Sequence[HandlerSpec]


@dataclass(frozen=True)
class MergeResult:
    text: str
    warnings: list[str] = field(default_factory=list)


class MergeConflict(Exception):
    """A change that cannot be applied without touching user code (exit 3)."""

    def __init__(self, function: str | None, reason: str) -> None:
        self.function = function
        self.reason = reason
        where = f"handler {function!r}: " if function else ""
        super().__init__(f"{where}{reason}")


def render_stub(handler: HandlerSpec) -> str:
    doc = f"    {handler.docstring}\n" if handler.docstring else ""
    return (
        f"def {handler.function}({handler.parameters}) -> {handler.returns}:\n"
        f"{doc}"
        f"    raise NotImplementedError({handler.tool!r})\n"
    )


def render_new(spec: HandlerModuleSpec) -> str:
    parts = [
        f"{spec.docstring}\n\nfrom __future__ import annotations\n\n{spec.managed_imports}\n",
        *(render_stub(h) for h in spec.handlers),
    ]
    return "\n\n".join(parts)


def merge(existing: str, spec: HandlerModuleSpec) -> MergeResult:
    return MergeResult(existing)
