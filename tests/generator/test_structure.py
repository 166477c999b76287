"""The shape of the generator itself: the runtime stands alone (it is copied into every
generated package), modules stay small enough to read, and revisions are ordered only by
the registry."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from tests.support.paths import REPO

PACKAGE = REPO / "mcp_schemagen"
RUNTIME = PACKAGE / "runtime"
# What a generated server may import at run time besides the standard library.
RUNTIME_THIRD_PARTY = frozenset({"orjson", "jsonschema_rs"})
# Imported inside a function only, by the one module that needs it, so a server that never
# serves HTTP or never uses Redis does not need them (they are the package's `http` extra).
RUNTIME_LAZY = {("main.py", "uvicorn"), ("redis_store.py", "redis")}
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


# The generator's stages in the order data flows through them. A module may import from
# its own stage or an earlier one, never from a later one; the ground floor (shared by
# all: names, diagnostics, caches, JSON Schema keywords) imports only itself.
STAGE_ORDER: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "ground",
        frozenset(
            {"__init__", "naming", "diagnostics", "package_data", "atomic", "caches", "schema"}
        ),
    ),
    ("load", frozenset({"load"})),
    ("check", frozenset({"check"})),
    ("compile", frozenset({"compile"})),
    ("render", frozenset({"render"})),
    ("record", frozenset({"record"})),
    ("handlers", frozenset({"handlers"})),
    ("write", frozenset({"write"})),
    ("protocol_models", frozenset({"protocol_models"})),
    ("commands", frozenset({"install_source", "pipeline", "freshness", "scaffold", "cli"})),
)


def _generator_modules() -> dict[str, Path]:
    """Dotted name -> file of every generator module (the runtime stands apart)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        if parts[1:2] == ("runtime",):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imported_modules(path: Path, modules: dict[str, Path]) -> set[str]:
    """Generator modules ``path`` imports anywhere: at the top, in a function or under
    TYPE_CHECKING (an import for type checking only is a dependency all the same)."""
    this = ".".join(path.relative_to(REPO).with_suffix("").parts)
    package = this.rsplit(".", 1)[0] if path.name != "__init__.py" else this[: -len(".__init__")]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            # The longest generator module the name is in (a module, or a name in one).
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
    found.discard(this)
    return found


def _stage(module: str) -> int:
    head = module.split(".")[1] if "." in module else "__init__"
    for rank, (_, heads) in enumerate(STAGE_ORDER):
        if head in heads:
            return rank
    raise AssertionError(f"{module} belongs to no stage; add it to STAGE_ORDER")


def test_no_generator_module_imports_from_a_later_stage() -> None:
    modules = _generator_modules()
    backwards = []
    for name, path in modules.items():
        for target in sorted(_imported_modules(path, modules)):
            if _stage(target) > _stage(name):
                backwards.append(
                    f"{name} ({STAGE_ORDER[_stage(name)][0]}) imports {target} "
                    f"({STAGE_ORDER[_stage(target)][0]})"
                )
    assert backwards == []


def test_no_import_cycles_among_generator_modules() -> None:
    modules = _generator_modules()
    graph = {name: _imported_modules(path, modules) for name, path in modules.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def _architecture_rows() -> list[tuple[list[str], str]]:
    """(paths named in the "where" column, the "job" text) of each row of README's
    architecture table. A name without a folder in "where" is beside the row's first path."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Architecture\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        where, job = line.split(" | ", 1)
        names = re.findall(r"`([^`]+)`", where)
        first = names[0]
        folder = first if first.endswith("/") else first.rpartition("/")[0] + "/"
        paths = [first] + [name if "/" in name else folder + name for name in names[1:]]
        rows.append((paths, job))
    return rows


def _matches(pattern: str) -> list[Path]:
    return [p for p in REPO.glob(pattern.rstrip("/")) if "__pycache__" not in p.parts]


def test_readme_architecture_names_every_path_that_exists_and_only_those() -> None:
    rows = _architecture_rows()
    missing = [path for paths, _ in rows for path in paths if not _matches(path)]
    # A folder's row names its modules in its job text (`name.py`): each must be there.
    for paths, job in rows:
        if paths[0].endswith("/"):
            missing += [
                paths[0] + name
                for name in re.findall(r"`([\w]+\.py)`", job)
                if not (REPO / paths[0] / name).is_file()
            ]
    assert missing == []


def test_readme_architecture_names_every_module() -> None:
    named: set[Path] = set()
    for paths, job in _architecture_rows():
        for path in paths:
            named.update(p.resolve() for p in _matches(path) if p.suffix == ".py")
        if paths[0].endswith("/"):
            folder = REPO / paths[0]
            named.add((folder / "__init__.py").resolve())
            named.update((folder / name).resolve() for name in re.findall(r"`([\w]+\.py)`", job))
    unnamed = [
        path.relative_to(REPO).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.resolve() not in named
    ]
    assert unnamed == []
