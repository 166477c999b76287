"""The user-owned handler module: written once, then kept current with libcst.

What the generator owns in ``handlers.py``, and nothing else:

* each handler's name, parameter list and return annotation;
* one marker comment directly above each handler, ``# mcp-codegen tool: "<tool>"``. It is
  how a later build tells a handler (whose tool may disappear) from a helper function of the
  same shape, and which tool it served;
* the top-level import statements from ``.types`` and ``._runtime.content`` (names from
  the latter, which older builds wrote, move to ``.types`` or the public ``.api``), and the
  top-level ``if TYPE_CHECKING:`` block holding one (a user's other statements in it are
  theirs), with the ``from typing import TYPE_CHECKING`` that block needs;
* the orphan banner (:data:`ORPHAN_BANNER`) that starts the orphan section at the end;
* the stand-in lines (``Name = Any  # mcp-codegen: ...``) for types of removed tools.

Everything else is the user's and is kept byte for byte: bodies, docstrings, comments,
decorators, ``async``, helpers, other imports and module-level code.

Policies (see also :func:`merge`):

* **async** -- a user may turn a handler into ``async def``; the keyword is kept.
* **Removed tools** -- the handler moves, byte for byte with the comments directly above
  it, to the orphan section; a warning names function and tool. Nothing there is rewritten
  later. A tool that comes back takes its handler back out (body kept, signature updated).
* **Generated imports** -- after a merge they import what the schemas need, plus any name
  they imported before that live user code (anything but orphans and generated
  signatures) still reads: a user may add generated types to that import for their bodies.
  Names only orphans still read are dropped: their tool is gone, so their types most
  likely are too, and importing a vanished name would break the whole module at import.
  Such an orphan is reported in a warning, and each name it still reads is defined as
  ``Any`` after the imports (a stand-in, :mod:`.stand_ins`), so the module still imports
  and type-checks; a stand-in goes when nothing reads its name or the import binds it
  again. A name the module reads at run time (as it loads, or in a function's
  body: a TypedDict built, an enum member, ``isinstance``, a default, a decorator, or an
  annotation a decorator or base class other than known inert ones may evaluate: pydantic,
  typeguard) is imported for real; a name only annotations read goes under ``if TYPE_CHECKING:``, so
  serving never loads ``.types`` (:mod:`.imports`). Each build moves a name to the part its
  use asks for; the single import older builds wrote is migrated the same way. Where a dropped name *would* be evaluated at
  import (a decorator, a default value, an annotation without that future import) the
  merge stops with a :class:`MergeConflict` instead of writing a module that cannot load.
* **Conflicts** -- the merge either returns the whole new text or raises
  :class:`MergeConflict` (exit 3): the module does not parse; a handler's name is taken by
  something that is not a single marked top-level function; a signature or generated
  import that must change carries a comment that rewriting would lose; a dropped name is
  evaluated at import time. Nothing is ever partially applied.

Analysis uses :mod:`ast` (scopes and reads are simple there, and it is fast); edits use
libcst, which reproduces every untouched byte. The two trees are paired statement by
statement at the top level, so both views always agree on what is where.
"""

from __future__ import annotations

from collections.abc import Mapping

from mcp_schemagen.handlers.apply import apply_plan
from mcp_schemagen.handlers.module import parse_module
from mcp_schemagen.handlers.plan import plan_merge
from mcp_schemagen.handlers.spec import HandlerModuleSpec, MergeResult, ParsedSpec


def merge(
    existing: str, spec: HandlerModuleSpec, previous_digests: Mapping[str, str] | None = None
) -> MergeResult:
    """Bring ``existing`` (the user's handler module) in line with ``spec``.

    Returns the new text (``existing`` itself when nothing changes, so a second build is a
    no-op) and warnings for the user. Raises :class:`MergeConflict` when the change cannot
    be made without touching user code, and ``ValueError`` for a malformed spec.
    ``previous_digests`` (tool -> inputSchema digest, from the previous build's record)
    lets a renamed tool take its handler along (:mod:`.renames`).
    """
    parsed = ParsedSpec.of(spec)
    module = parse_module(existing)
    plan = plan_merge(module, parsed, previous_digests)
    if plan.empty():
        return MergeResult(existing, plan.warnings)
    return MergeResult(apply_plan(module, parsed, plan), plan.warnings)
