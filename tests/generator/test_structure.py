"""The shape of the generator itself: the runtime stands alone (it is copied into every
generated package), modules stay small enough to read, and revisions are ordered only by
the registry."""

from __future__ import annotations

import ast
import re
import subprocess
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
    ("store/url.py", "redis"),
    ("store/redis_connections.py", "redis"),
    ("auth/tokens.py", "jwt"),
    ("auth/keys.py", "jwt"),  # a JWK is parsed before it enters the cache
    ("http/deadlines.py", "uvicorn"),  # its classes subclass uvicorn's protocols
    ("http/worker_processes.py", "uvicorn"),  # --workers N: uvicorn's supervisor and server
    # The task engine (--task-engine taskiq, task-worker): the package's tasks extra.
    ("tasks/engine.py", "taskiq"),
    ("tasks/engine.py", "taskiq_redis"),
    ("tasks/engine_worker.py", "taskiq"),
    ("tasks/engine_worker.py", "redis"),  # the start-up ping
}  # paths under runtime/
LONGEST_MODULE = 450


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


def _runtime_modules() -> list[Path]:
    """Every module of the runtime, its folders' included (they are all copied)."""
    return sorted(p for p in RUNTIME.rglob("*.py") if "__pycache__" not in p.parts)


def _runtime_name(path: Path) -> str:
    return path.relative_to(RUNTIME).as_posix()


def test_runtime_imports_only_itself_the_standard_library_orjson_and_jsonschema_rs() -> None:
    allowed = set(sys.stdlib_module_names) | RUNTIME_THIRD_PARTY | {"__future__"}
    outside = []
    for path in _runtime_modules():
        eager = _top_level_imports(path)
        for line, module, level in _imports(path):
            if level or module in allowed:
                continue
            if (_runtime_name(path), module) in RUNTIME_LAZY and line not in eager:
                continue
            outside.append(f"{_runtime_name(path)}:{line}: {module}")
    assert outside == []
    # Relative imports stay inside the runtime package: a module in runtime/http/ may go up
    # one level (``..jsonrpc``), never past the runtime's root into the generator.
    escaping = [
        f"{_runtime_name(path)}:{line}"
        for path in _runtime_modules()
        for line, _, level in _imports(path)
        if level > len(path.relative_to(RUNTIME).parts)
    ]
    assert escaping == []


def test_every_runtime_folder_is_a_package() -> None:
    """The copy in a generated package imports its folders as regular packages."""
    folders = {p.parent for p in _runtime_modules()}
    assert [f for f in folders if not (f / "__init__.py").is_file()] == []


def _runtime_edges(root: Path = RUNTIME) -> dict[str, set[str]]:
    """Which runtime module imports which, counting every import: inside functions and
    under ``if TYPE_CHECKING`` too (a cycle there is still two modules that need each
    other)."""
    paths = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    modules = {_module_of(path, root): path for path in paths}
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            base = package[: len(package) - (node.level - 1)]
            stem = [*base, *(node.module.split(".") if node.module else [])]
            for alias in node.names:  # `from .http import app` names a module too
                for target in (".".join([*stem, alias.name]), ".".join(stem)):
                    if target in modules:
                        if target != name:
                            edges[name].add(target)
                        break
    return edges


def _module_of(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts) or "__init__"


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def test_runtime_modules_import_each_other_without_cycles() -> None:
    cycles = _cycles(_runtime_edges())
    assert cycles == []


def test_the_cycle_finder_sees_type_checking_imports(tmp_path: Path) -> None:
    """The check above would pass vacuously if it missed imports: a cycle through
    ``if TYPE_CHECKING`` alone, as the HTTP endpoints once had with the app, is found,
    and so is one through an import inside a function or a subfolder's ``..``."""
    (tmp_path / "http").mkdir()
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "http" / "__init__.py").write_text("")
    (tmp_path / "http" / "app.py").write_text("from .sessions import SessionEndpoint\n")
    (tmp_path / "http" / "sessions.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .app import App\n"
    )
    (tmp_path / "store.py").write_text("def open():\n    from .http import app\n")
    (tmp_path / "jsonrpc.py").write_text("")
    (tmp_path / "http" / "wire.py").write_text("from .. import jsonrpc\nfrom ..store import open\n")
    edges = _runtime_edges(tmp_path)
    assert edges["http.wire"] == {"jsonrpc", "store"}
    assert edges["store"] == {"http.app"}
    assert _cycles(edges) == [["http.app", "http.sessions"]]


# The runtime's layers, bottom up. A folder of the runtime, or a module at its top (a node
# of its own), imports only from its own layer or a lower one; within a layer no folders
# import each other in a circle (the test above it). docs/architecture.md, "Runtime
# layers", says the same in words.
RUNTIME_LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "ground",  # values and helpers that know no protocol revision
        frozenset(
            {
                "__init__",
                "exact_json",
                "jsonrpc",
                "shorten",
                "workers",
                "content",
                "validation",
                "handler_lookup",
                "handler_hints",
                "result",
                "prompt_result",
            }
        ),
    ),
    (
        "facts",
        frozenset({"protocol", "registry", "store", "apps"}),
    ),  # revisions, tools, shared state
    ("session", frozenset({"session", "auth"})),  # one client: its session, its principal
    ("handler", frozenset({"asking", "context"})),  # what a running handler sees and asks
    ("core", frozenset({"core"})),  # negotiation, listing, one call's lifecycle
    ("features", frozenset({"prompts", "resources", "skills", "subscriptions", "tasks"})),
    ("server", frozenset({"server"})),  # the method table every transport hands messages to
    ("transports", frozenset({"stdio", "http"})),  # http wraps its endpoint in auth's guard
    ("main", frozenset({"main"})),
)


def _folder_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph seen by folder: a runtime folder, or a module at the runtime's
    top, is one node; an import between two of them is an edge (all kinds of import, as
    ``_runtime_edges`` counts them)."""
    folders: dict[str, set[str]] = {name.split(".")[0]: set() for name in edges}
    for name, targets in edges.items():
        folders[name.split(".")[0]] |= {t.split(".")[0] for t in targets}
    for folder, targets in folders.items():
        targets.discard(folder)
    return folders


def _upward_imports(
    folders: dict[str, set[str]], layers: tuple[tuple[str, frozenset[str]], ...]
) -> list[str]:
    """Each import of a folder from a layer above its own, as text; an AssertionError
    for a folder no layer names."""
    rank = {folder: index for index, (_, members) in enumerate(layers) for folder in members}
    unplaced = sorted(set(folders) - rank.keys())
    assert unplaced == [], f"runtime folders in no layer: {unplaced}; add them to RUNTIME_LAYERS"
    return [
        f"{folder} ({layers[rank[folder]][0]}) imports {target} ({layers[rank[target]][0]})"
        for folder in sorted(folders)
        for target in sorted(folders[folder])
        if rank[target] > rank[folder]
    ]


def test_runtime_folders_import_each_other_without_circles() -> None:
    assert _cycles(_folder_edges(_runtime_edges())) == []


def test_runtime_folders_import_only_their_own_layer_or_lower() -> None:
    assert _upward_imports(_folder_edges(_runtime_edges()), RUNTIME_LAYERS) == []


def test_every_runtime_layer_names_only_folders_that_exist() -> None:
    folders = set(_folder_edges(_runtime_edges()))
    assert [f for _, members in RUNTIME_LAYERS for f in sorted(members - folders)] == []


def test_the_folder_checks_see_circles_no_module_cycle_shows(tmp_path: Path) -> None:
    """Two folders that need each other only through ``if TYPE_CHECKING`` one way and an
    import inside a function the other way make no module cycle, yet are a circle of
    folders; the layer check names the import that runs up."""
    for folder in ("http", "subscriptions"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "http" / "app.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from ..subscriptions.serving import Subscriptions\n"
    )
    (tmp_path / "http" / "stream.py").write_text("")
    (tmp_path / "subscriptions" / "serving.py").write_text("")
    (tmp_path / "subscriptions" / "standalone.py").write_text(
        "def streams():\n    from ..http import stream\n"
    )
    edges = _runtime_edges(tmp_path)
    assert _cycles(edges) == []
    folders = _folder_edges(edges)
    assert _cycles(folders) == [["http", "subscriptions"]]
    layers = (
        ("ground", frozenset({"__init__"})),
        ("features", frozenset({"subscriptions"})),
        ("transports", frozenset({"http"})),
    )
    assert _upward_imports(folders, layers) == [
        "subscriptions (features) imports http (transports)"
    ]


def test_no_generator_module_is_too_long_to_read() -> None:
    long = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_MODULE
    }
    assert long == {}


# The generator's own modules (the runtime's are held to the same by LONGEST_MODULE).
LONGEST_GENERATOR_MODULE = 450


def test_no_generator_module_is_over_450_lines() -> None:
    long = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if RUNTIME not in path.parents
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_GENERATOR_MODULE
    }
    assert long == {}


def test_the_pre_commit_path_imports_no_check_compile_or_render_module() -> None:
    """`check` on an unchanged project imports freshness.py only; the table of kinds it
    reads (through the build record's inputs) must not pull each kind's checks in."""
    probe = (
        "import sys, mcp_schemagen.freshness; print(' '.join(sorted(m for m in sys.modules"
        " if m.startswith(('mcp_schemagen.compile', 'mcp_schemagen.render.package',"
        " 'mcp_schemagen.check.tool_checks', 'mcp_schemagen.check.prompt_checks',"
        " 'mcp_schemagen.check.resource_checks', 'jsonschema', 'jinja2')))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert loaded.stdout.split() == []


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
            {
                "__init__",
                "naming",
                "diagnostics",
                "package_data",
                "atomic",
                "caches",
                "schema",
                "source",
                "program",
            }
        ),
    ),
    ("load", frozenset({"load"})),
    ("check", frozenset({"check"})),
    # The table of kinds: its rows name each kind's reader (load) and checks (check), and
    # every later stage reads the rows.
    ("kinds", frozenset({"kinds", "kind_sources"})),
    ("compile", frozenset({"compile"})),
    ("render", frozenset({"render"})),
    ("record", frozenset({"record"})),
    ("handlers", frozenset({"handlers"})),
    ("write", frozenset({"write"})),
    ("protocol_models", frozenset({"protocol_models"})),
    ("contract", frozenset({"contract"})),  # `mcp-codegen breaking`: reads, never writes
    ("openapi", frozenset({"openapi"})),  # `mcp-codegen import openapi`: writes tool files
    (
        "commands",
        frozenset(
            {
                "install_source",
                "pipeline",
                "freshness",
                "scaffold",
                "cli",
                "cli_options",
                "cli_breaking",
            }
        ),
    ),
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
    """(paths named in the "where" column, the "job" text) of each row of the
    architecture table (docs/architecture.md). A name without a folder in "where" is beside the row's first path."""
    section = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
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
