"""The shape of the generator itself: the runtime stands alone (it is copied into every
generated package), modules stay small enough to read, and revisions are ordered only by
the registry."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.support.paths import REPO

PACKAGE = REPO / "mcp_schemagen"
RUNTIME = PACKAGE / "runtime"
# What a generated server may import at run time besides the standard library.
RUNTIME_THIRD_PARTY = frozenset({"orjson", "jsonschema_rs"})
# Imported inside a function only, by the one module that needs it, so a server that never
# serves HTTP or never uses Redis does not need them (they are the package's `http` extra).
RUNTIME_LAZY = {
    ("main.py", "uvicorn"),
    ("main.py", "redis"),
    ("store.py", "redis"),
    ("redis_store.py", "redis"),
}
LONGEST_MODULE = 500


def _imports(path: Path) -> list[tuple[int, str, int]]:
    """(line, top-level module, relative level) of every import in ``path``."""
    found: list[tuple[int, str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0], 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, (node.module or "").split(".")[0], node.level))
    return found


def _top_level_imports(path: Path) -> set[int]:
    """Lines of the imports outside any function (run when the module is imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inside |= {
                n.lineno for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)
            }
    return {n.lineno for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)} - inside


def test_runtime_imports_only_itself_the_standard_library_orjson_and_jsonschema_rs() -> None:
    allowed = set(sys.stdlib_module_names) | RUNTIME_THIRD_PARTY | {"__future__"}
    outside = []
    for path in sorted(RUNTIME.glob("*.py")):
        eager = _top_level_imports(path)
        for line, module, level in _imports(path):
            if level or module in allowed:
                continue
            if (path.name, module) in RUNTIME_LAZY and line not in eager:
                continue
            outside.append(f"{path.name}:{line}: {module}")
    assert outside == []
    # Relative imports stay inside the runtime package (level 1), never reach the generator.
    escaping = [
        f"{path.name}:{line}"
        for path in sorted(RUNTIME.glob("*.py"))
        for line, _, level in _imports(path)
        if level > 1
    ]
    assert escaping == []


def test_no_generator_module_is_too_long_to_read() -> None:
    long = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_MODULE
    }
    assert long == {}


def test_templates_folder_holds_jinja_only() -> None:
    others = [
        p.relative_to(REPO).as_posix()
        for p in sorted((REPO / "templates").rglob("*"))
        if p.is_file() and p.suffix != ".jinja"
    ]
    assert others == []


def test_no_revision_is_chosen_by_string_order() -> None:
    """Revision names are identifiers, not an ordered scalar: "newest" comes from the
    registry's order (protocol.newest / protocol.ordered), never from max(), min() or
    sorted() over names. Calls of those builtins must not take revision names."""
    suspicious: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in {"max", "min", "sorted"}:
                continue
            text = ast.unparse(node)
            if "revision" in text.lower():
                suspicious.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {text}")
    assert suspicious == []
