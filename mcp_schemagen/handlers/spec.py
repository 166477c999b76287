"""What the generator wants of the handler module: each handler's name, parameters and
return type, and the generated import; parsed once into the form the merge compares."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from mcp_schemagen.kinds import markers

# As in `from .<module> import ...`. Older builds imported content types from the private
# `_runtime.content`; the merge moves those names to `.types` and `.api`.
RUNTIME_CONTENT = "_runtime.content"
MANAGED_MODULES = ("types", RUNTIME_CONTENT)


@dataclass(frozen=True)
class HandlerSpec:
    """What the generator owns of one handler: its name, parameters and return type."""

    function: str  # Python function name
    tool: str  # the tool's name as published
    parameters: str  # source of the parameter list, e.g. "*, city: str, units: Units = 'c'"
    returns: str  # source of the return annotation
    docstring: str | None  # source of a string literal, used for new stubs only
    # "tool", "prompt", "resource" or "completion": which marker comment names it
    kind: str = "tool"
    # a tool's inputSchema digest, recorded so that a later build can tell a renamed tool
    # (same inputSchema, new name) and move its handler along (handlers.renames)
    schema_digest: str = ""
    # a new stub's body (an imported operation's: its generated call), else NotImplementedError;
    # with one, the stub is `async def`
    body: str | None = None

    @property
    def marker(self) -> str:
        """What its marker comment says, as the merge matches it (see marker_key)."""
        return marker_key(self.kind, self.tool)


# Each marker word's key prefix, from kinds.KINDS: a tool's key has none (its markers
# predate the other kinds'), every other kind's is its marker word and ":".
KIND_KEYS = {marker: f"{marker}:" for marker in markers() if marker != "tool"}


def marker_key(kind: str, name: str) -> str:
    """A handler's identity in the merge: a tool's name as it is, a prompt's name behind
    ``prompt:``, a resource reader's URI or URI template behind ``resource:`` and a
    completion handler's ``prompt NAME ARGUMENT`` or ``resource TEMPLATE VARIABLE`` behind
    ``completion:`` (a tool name cannot hold ``:``), so no two kinds' names meet."""
    if kind == "tool":
        return name
    return KIND_KEYS[kind] + name


@dataclass(frozen=True)
class HandlerModuleSpec:
    docstring: str  # source of the module docstring literal, for new modules
    # the import statement(s) the generator owns, e.g. "from .types import A, B"
    managed_imports: str
    handlers: Sequence[HandlerSpec]
    # every name `.types` defines, when known: an import of any other name would stop
    # the module from loading
    type_names: frozenset[str] | None = None


@dataclass(frozen=True)
class MergeResult:
    text: str
    warnings: list[str] = field(default_factory=list)


class MergeConflict(Exception):
    """A change that cannot be applied without touching user code (exit 3)."""

    def __init__(self, function: str | None, reason: str, *, unreadable: bool = False) -> None:
        self.function = function
        self.reason = reason
        # the module could not be read at all (it does not parse), as opposed to read but
        # not updatable: messages say "cannot read", true of `check` as much as of `build`
        self.unreadable = unreadable
        where = f"handler {function!r}: " if function else ""
        super().__init__(f"{where}{reason}")


Triple = tuple[str, str, str | None]  # (module, name, asname) of one imported name


@dataclass(frozen=True)
class ParsedSpec:
    """The spec, parsed once: signatures as ast, imports as (module, name, asname)."""

    source: HandlerModuleSpec
    handlers: dict[str, HandlerSpec]
    signatures: dict[str, ast.FunctionDef]
    imports: tuple[Triple, ...]

    @staticmethod
    def of(spec: HandlerModuleSpec) -> ParsedSpec:
        handlers: dict[str, HandlerSpec] = {}
        for h in spec.handlers:
            if h.function in handlers:
                raise ValueError(f"handler spec: function {h.function!r} appears twice")
            handlers[h.function] = h
        signatures = {name: _spec_signature(h) for name, h in handlers.items()}
        return ParsedSpec(spec, handlers, signatures, _spec_imports(spec.managed_imports))


def _spec_signature(h: HandlerSpec) -> ast.FunctionDef:
    source = f"def {h.function}({h.parameters}) -> {h.returns}:\n    pass\n"
    try:
        node = ast.parse(source).body[0]
    except SyntaxError as error:
        raise ValueError(f"handler spec {h.function!r}: bad signature: {error}") from error
    assert isinstance(node, ast.FunctionDef)
    return node


def _spec_imports(source: str) -> tuple[Triple, ...]:
    try:
        statements = ast.parse(source).body
    except SyntaxError as error:
        raise ValueError(f"handler spec: bad managed_imports: {error}") from error
    triples: list[Triple] = []
    for statement in statements:
        if not is_managed_import(statement):
            raise ValueError(f"handler spec: not a managed import: {ast.unparse(statement)}")
        triples.extend(import_triples(statement))
    return tuple(triples)


def is_managed_import(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.ImportFrom)
        and statement.level == 1
        and statement.module in MANAGED_MODULES
    )


def import_triples(statement: ast.stmt) -> Iterator[Triple]:
    assert isinstance(statement, ast.ImportFrom) and statement.module is not None
    for alias in statement.names:
        yield (statement.module, alias.name, alias.asname)


def bound_name(triple: Triple) -> str:
    return triple[2] or triple[1]
