"""Everything about the user's handler module (``handlers.py``), in one package.

- :mod:`.spec`: what the generator wants of the module (each handler's signature, the
  generated import), and the typed errors and results of a merge;
- :mod:`.signatures`: that wish, made from the compiled tools;
- :mod:`.stubs`: new stubs and new modules, and the marker comments;
- :mod:`.module`, :mod:`.lines`: the module as read (ast and libcst, paired);
- :mod:`.scope`: which names it binds and reads;
- :mod:`.plan`: every change a merge makes, decided first; :mod:`.apply`: making them;
- :mod:`.imports`, :mod:`.run_time`: the generated import, real or under TYPE_CHECKING;
- :mod:`.merge`: the merge policy and its entry point;
- :mod:`.file`: the handler module of a build, and the record ``check`` reads it back by.
"""

import importlib

from mcp_schemagen.handlers.spec import (
    HandlerModuleSpec,
    HandlerSpec,
    MergeConflict,
    MergeResult,
)
from mcp_schemagen.handlers.stubs import MARKER_PREFIX, ORPHAN_BANNER, marker_comment, render_new


def merge(existing: str, spec: HandlerModuleSpec) -> MergeResult:
    """:func:`mcp_schemagen.handlers.merge.merge`, loaded on first use: it loads libcst
    (a third of a second), which only a build that changes the module needs."""
    run = importlib.import_module("mcp_schemagen.handlers.merge").merge
    # Loading the submodule bound its name in this package to the module: bind it back.
    globals()["merge"] = _merge_entry
    result: MergeResult = run(existing, spec)
    return result


_merge_entry = merge


__all__ = [
    "MARKER_PREFIX",
    "ORPHAN_BANNER",
    "HandlerModuleSpec",
    "HandlerSpec",
    "MergeConflict",
    "MergeResult",
    "marker_comment",
    "merge",
    "render_new",
]
