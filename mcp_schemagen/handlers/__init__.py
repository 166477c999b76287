"""Everything about the user's handler module (``handlers.py``), in one package.

- :mod:`.spec`: what the generator wants of the module (each handler's signature, the
  generated import), and the typed errors and results of a merge;
- :mod:`.signatures`: that wish, made from the compiled tools;
- :mod:`.stubs`: new stubs and new modules, and the marker comments;
- :mod:`.module`, :mod:`.lines`: the module as read (ast and libcst, paired);
- :mod:`.scope`: which names it binds and reads;
- :mod:`.plan`: every change a merge makes, decided first; :mod:`.apply`: making them;
- :mod:`.merge`: the merge policy and its entry point;
- :mod:`.file`: the handler module of a build, and the record ``check`` reads it back by.
"""

from mcp_schemagen.handlers.merge import merge
from mcp_schemagen.handlers.spec import (
    HandlerModuleSpec,
    HandlerSpec,
    MergeConflict,
    MergeResult,
)
from mcp_schemagen.handlers.stubs import MARKER_PREFIX, ORPHAN_BANNER, marker_comment, render_new

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
