"""The import block of a generated module, in the order isort and ruff's ``I`` rules want.

Generated modules put their imports together from several sources (templates,
datamodel-code-generator, aliases added afterwards), so the block is rebuilt here once,
from the statements themselves: sections (``__future__``, standard library, third party,
this package) separated by a blank line; ``import x`` before ``from x import ...`` in
each section; one statement per module, members merged and sorted, except that each
``name as other`` import keeps a statement of its own (ruff's default
``combine-as-imports = false``). Keys follow ruff's defaults: modules and members in
natural order, case-insensitive, members grouped constants, classes, then the rest.
A test runs ruff itself over generated packages, so a drift from its rules shows.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

_RUNS = re.compile(r"(\d+)")


def _natural(text: str) -> tuple[tuple[int, int, str], ...]:
    """Digit runs compare by value, everything else character by character."""
    key: list[tuple[int, int, str]] = []
    for index, part in enumerate(_RUNS.split(text)):
        if index % 2:
            key.append((0, int(part), ""))
        else:
            key.extend((1, 0, char) for char in part)
    return tuple(key)


def _member_kind(name: str) -> int:
    if len(name) > 1 and name.upper() == name and name.lower() != name:
        return 0  # a constant
    return 1 if name[:1].isupper() else 2  # a class, or anything else


def _member_key(name: str, asname: str | None) -> tuple[object, ...]:
    return (
        _member_kind(name),
        _natural(name.lower()),
        _natural(name),
        _natural((asname or "").lower()),
        _natural(asname or ""),
    )


def _module_key(level: int, module: str) -> tuple[object, ...]:
    return (-level, _natural(module.lower()), _natural(module))


@dataclass(frozen=True)
class _From:
    level: int
    module: str
    members: tuple[tuple[str, str | None], ...]

    def render(self) -> str:
        names = ", ".join(f"{n} as {a}" if a else n for n, a in self.members)
        return f"from {'.' * self.level}{self.module} import {names}"

    def key(self) -> tuple[object, ...]:
        return (*_module_key(self.level, self.module), *_member_key(*self.members[0]))


def _section(level: int, module: str) -> int:
    if module == "__future__":
        return 0
    if level:
        return 3
    return 1 if module.partition(".")[0] in sys.stdlib_module_names else 2


def _render(statements: list[ast.Import | ast.ImportFrom]) -> str:
    plain: dict[int, set[str]] = {}
    merged: dict[tuple[int, str], set[tuple[str, str | None]]] = {}
    renamed: dict[int, list[_From]] = {}
    for statement in statements:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                line = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                plain.setdefault(_section(0, alias.name), set()).add(line)
            continue
        module = statement.module or ""
        section = _section(statement.level, module)
        for alias in statement.names:
            if alias.asname is not None:
                one = _From(statement.level, module, ((alias.name, alias.asname),))
                renamed.setdefault(section, []).append(one)
            else:
                merged.setdefault((statement.level, module), set()).add((alias.name, None))
    froms: dict[int, list[_From]] = {k: list(v) for k, v in renamed.items()}
    for (level, module), members in merged.items():
        ordered = tuple(sorted(members, key=lambda m: _member_key(*m)))
        froms.setdefault(_section(level, module), []).append(_From(level, module, ordered))
    blocks = []
    for section in sorted({*plain, *froms}):
        lines = sorted(plain.get(section, ()), key=lambda line: _natural(line.lower()))
        lines += [f.render() for f in sorted(froms.get(section, ()), key=_From.key)]
        blocks.append("\n".join(dict.fromkeys(lines)))
    return "\n\n".join(blocks) + "\n"


def sort_imports(source: str) -> str:
    """``source`` with its leading import block (the imports before any other statement
    but a docstring) rebuilt in sorted form; ruff then lays out long statements."""
    tree = ast.parse(source)
    body = tree.body
    start = (
        1
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        else 0
    )
    end = start
    while end < len(body) and isinstance(body[end], ast.Import | ast.ImportFrom):
        end += 1
    if end == start:
        return source
    block = body[start:end]
    assert all(isinstance(s, ast.Import | ast.ImportFrom) for s in block)
    lines = source.splitlines(keepends=True)
    first, last = block[0].lineno - 1, block[-1].end_lineno
    assert last is not None
    statements = [s for s in block if isinstance(s, ast.Import | ast.ImportFrom)]
    rest = "".join(lines[last:])
    return "".join(lines[:first]) + _render(statements) + rest


def sorted_names(names: set[str] | list[str]) -> list[str]:
    """Names in the order ruff wants ``__all__`` (RUF022): constants, classes, the rest."""
    return sorted(set(names), key=lambda name: _member_key(name, None))
