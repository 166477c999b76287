"""`mcp-codegen new`: names refused, folders respected, and a project that is complete.

The last two tests are the slow ones: one installs a scaffolded project with only its
run-time dependencies into a fresh virtual environment (no system site-packages, so a
dependency the project forgets to declare fails) and serves it to the official MCP client
(about 30 s); the other builds a wheel of mcp-codegen, scaffolds a project with it and
follows that project's README set-up as written, then runs its tests (about 3 min).
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from packaging.specifiers import SpecifierSet

from mcp_schemagen import DISTRIBUTION, __version__, scaffold
from mcp_schemagen.diagnostics import BuildError
from mcp_schemagen.freshness import is_fresh
from mcp_schemagen.handlers.file import spec_from_json
from mcp_schemagen.install_source import current_source
from mcp_schemagen.load import specs
from mcp_schemagen.pipeline import plan
from mcp_schemagen.protocol_models.models import render_protocol_module
from mcp_schemagen.record.manifest import read_manifest
from tests.support.paths import REPO
from tests.support.projects import run_cli
from tests.support.shell import markdown_block, run_in_fresh_shell

NAME = "demo_server"
EXPECTED_FILES = {
    ".gitignore",
    ".pre-commit-config.yaml",
    "README.md",
    "docs/style-guide.md",
    "prompts/proofread.yaml",
    "pyproject.toml",
    "resources/docs.yaml",
    "tests/test_handlers.py",
    "tests/test_server.py",
    "tools/delete_draft.json",
    "tools/divide.yaml",
    "tools/greet.json",
    "tools/word_stats.json",
}
# Third-party import name -> the distribution that provides it.
DISTRIBUTIONS = {
    "jsonschema_rs": "jsonschema-rs",
    "orjson": "orjson",
    "typing_extensions": "typing-extensions",
    "pydantic": "pydantic",
    "uvicorn": "uvicorn",  # imported only by `--http`
    "redis": "redis",  # imported only by `--store redis://...`
    "jwt": "PyJWT",  # imported only when an access token is checked (--auth-*)
    "mcp": "mcp",  # imported only by the typed client (client.py, _client.py, _tasks.py)
    "anyio": "anyio",  # the same
    "taskiq": "taskiq",  # imported only by --task-engine taskiq and task-worker
    "taskiq_redis": "taskiq-redis",  # the same
}
# The typed client's modules: the server never imports them; the `client` extra.
CLIENT_MODULES = {"client.py", "_client.py", "_tasks.py"}
# Imported only inside the functions serving --http, --store redis:// and --auth-*: the
# `http` extra.
HTTP_ONLY = {"uvicorn", "redis", "PyJWT"}
# Imported only by --task-engine taskiq and `python -m PACKAGE task-worker`: the `tasks` extra.
TASK_ENGINE_ONLY = {"taskiq", "taskiq-redis"}


def _listing(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scaffolded project, every protocol revision (the default), shared by the tests
    that only read it."""
    root = tmp_path_factory.mktemp("scaffold") / NAME
    assert scaffold.scaffold(NAME, root, None) == root
    return root


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("my-server", "'-' cannot appear"),
        ("my server", "a space cannot appear"),
        ("a/b", "'/' (a path separator) cannot appear"),
        ("../escape", "'.', '/' (a path separator) cannot appear"),
        ("x;rm -rf ~", "a space, '-', ';', '~' cannot appear"),
        ("$(whoami)", "'$', '(', ')' cannot appear"),
        ("`id`", "'`' cannot appear"),
        ("tab\there", "'\\t' cannot appear"),
        ("naïve", "'ï' cannot appear"),
        ("", "the name is empty"),
        ("1server", "must start with a letter"),
        ("_private", "must start with a letter"),
        ("server_", "must end with a letter or digit"),
        ("class", "is a Python keyword"),
        ("match", "is a Python keyword"),
        ("json", "standard library module 'json'"),
        ("orjson", "shadow the 'orjson' package"),
        ("tests", "shadow the 'tests' package"),
        ("a" * 65, "longer than 64 characters"),
    ],
)
def test_refuses_a_name_that_is_not_a_plain_package_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, reason: str
) -> None:
    monkeypatch.chdir(tmp_path)  # a name like ../escape must not create anything anywhere
    code, _, err = run_cli("new", name)
    assert code == 2
    assert f"NAME#: error: {name!r} is not a valid project name: " in err
    assert reason in err
    assert "nothing was written" in err
    assert list(tmp_path.iterdir()) == []
    assert not (tmp_path.parent / "escape").exists()


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("my-server", "my_server"), ("Weather Server", "weather_server"), ("2fast", "server_2fast")],
)
def test_suggests_a_valid_name(name: str, suggestion: str) -> None:
    with pytest.raises(BuildError) as caught:
        scaffold.check_name(name)
    assert str(caught.value).endswith(f"; try {suggestion}")
    assert scaffold.name_problem(suggestion) is None


def test_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    code, _, err = run_cli("new", NAME, "--dir", str(tmp_path))
    assert code == 2
    assert f"{tmp_path}#: error: the folder exists and is not empty" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_refuses_a_file(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("", encoding="utf-8")
    code, _, err = run_cli("new", NAME, "--dir", str(target))
    assert code == 2
    assert "exists and is not a folder" in err


def test_a_failed_build_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_plan(root: Path) -> Any:
        raise BuildError([])

    monkeypatch.setattr(scaffold, "plan", failing_plan)
    empty = tmp_path / "empty"
    empty.mkdir()
    for target in (tmp_path / "new", empty):
        with pytest.raises(BuildError):
            scaffold.scaffold(NAME, target, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize("spelled", ["absolute", "."])
def test_fills_an_existing_empty_folder_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelled: str
) -> None:
    target = tmp_path / "here"
    target.mkdir()
    inode = target.stat().st_ino
    if spelled == ".":
        monkeypatch.chdir(target)
    argument = str(target) if spelled == "absolute" else "."
    # One revision: this test is about the folder, not the build.
    code, out, err = run_cli("new", NAME, "--dir", argument, "--revision", "2026-07-28")
    assert code == 0, err
    assert out.startswith(f"created {os.path.relpath(target)}\n\nSet it up")
    assert target.stat().st_ino == inode, "a shell inside the folder keeps a valid cwd"
    assert _listing(target) >= EXPECTED_FILES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here"]
    assert not [p for p in target.iterdir() if p.name.endswith(".new")], "no staging folder left"
    document = tomllib.loads((target / "pyproject.toml").read_text(encoding="utf-8"))
    assert document["tool"]["mcp-codegen"]["revisions"] == ["2026-07-28"]


def test_adding_a_tool_as_the_readme_says_keeps_the_example_bodies(tmp_path: Path) -> None:
    root = scaffold.scaffold(NAME, tmp_path / "p", ["2026-07-28"])
    handlers = root / NAME / "handlers.py"
    before = ast.parse(handlers.read_text(encoding="utf-8"))
    bodies = {
        node.name: [ast.dump(statement) for statement in node.body]
        for node in before.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    echo = {
        "name": "echo",
        "description": "Say it back.",
        "inputSchema": {"type": "object", "properties": {"words": {"type": "string"}}},
    }
    (root / "tools" / "echo.json").write_text(json.dumps(echo), encoding="utf-8")
    assert run_cli("check", str(root))[0] == 1
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    after = ast.parse(handlers.read_text(encoding="utf-8"))
    functions = {
        node.name: node
        for node in after.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert len(bodies) >= 4, bodies  # the example handlers, each compared below
    for name, body in bodies.items():
        assert [ast.dump(statement) for statement in functions[name].body] == body, name
    assert "NotImplementedError" in ast.unparse(functions["echo"])
    assert run_cli("check", str(root))[0] == 0


# --------------------------------------------------------------------------- contents


def test_holds_the_project_files_and_the_built_package(project: Path) -> None:
    files = _listing(project)
    assert files >= EXPECTED_FILES
    package = {f for f in files if f.startswith(f"{NAME}/")}
    for generated in ("__main__.py", "_dispatch.py", "types.py", "handlers.py", "_manifest.json"):
        assert f"{NAME}/{generated}" in package
    assert files == EXPECTED_FILES | package
    assert sorted(p.name for p in project.parent.iterdir()) == [NAME], "no staging folder left"
    umask = os.umask(0o022)
    os.umask(umask)
    assert project.stat().st_mode & 0o777 == 0o777 & ~umask, "the mode any new folder gets"


def test_is_fresh_right_away_and_the_build_kept_every_handler_byte(project: Path) -> None:
    assert is_fresh(project)  # the manifest's fast path: nothing to regenerate
    code, out, _ = run_cli("check", str(project))
    assert (code, out) == (0, "generated code is up to date\n")
    rendered = {f.path.name: f.text for f in scaffold.project_files(project, NAME, None)}
    handlers = (project / NAME / "handlers.py").read_text(encoding="utf-8")
    assert handlers == rendered["handlers.py"]
    built = {f.path.name: f.text for f in plan(project).files}
    assert built["handlers.py"] == handlers


def _signature(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return ast.dump(function.args) + " -> " + ast.dump(function.returns or ast.Constant(None))


def test_the_handler_template_matches_the_generated_signatures(project: Path) -> None:
    manifest = read_manifest(project / NAME)
    assert manifest is not None
    spec = spec_from_json(manifest.handlers)
    text = (project / NAME / "handlers.py").read_text(encoding="utf-8")
    written = {
        node.name: node
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for handler in spec.handlers:
        source = f"def {handler.function}({handler.parameters}) -> {handler.returns}: pass"
        stub = ast.parse(source).body[0]
        assert isinstance(stub, ast.FunctionDef)
        assert _signature(written[handler.function]) == _signature(stub), handler.function
        marker = f'# mcp-codegen {handler.kind}: "{handler.tool}"\n'
        assert any(f"{marker}{d}def {handler.function}(" in text for d in ("", "async "))
    assert {h.function for h in spec.handlers} == {
        "delete_draft",
        "divide",
        "greet",
        "word_stats",
        "proofread",
        "read_glossary",
    }
    # The generated import, as the build writes it (formatted over several lines when long):
    # the template's handlers only annotate with these types, so all are under
    # `if TYPE_CHECKING:` and serving never loads `.types`.
    module = ast.parse(text)
    (block,) = [node for node in module.body if isinstance(node, ast.If)]
    assert ast.unparse(block.test) == "TYPE_CHECKING"

    def from_types(statements: list[ast.stmt]) -> set[str]:
        return {
            alias.name
            for node in statements
            if isinstance(node, ast.ImportFrom) and node.module == "types" and node.level == 1
            for alias in node.names
        }

    assert from_types(module.body) == set()
    assert from_types(block.body) == set(spec.managed_imports.split(" import ", 1)[1].split(", "))


def _third_party_imports(files: list[Path]) -> set[str]:
    found: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names and name != "__future__"}


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0] for r in requirements}


def test_declares_what_the_generated_package_imports(project: Path, tmp_path: Path) -> None:
    document = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    meta = document["project"]
    package = project / NAME
    serving = [
        p
        for p in package.rglob("*.py")
        if "protocol" not in p.relative_to(package).parts and p.name not in CLIENT_MODULES
    ]
    imported = {DISTRIBUTIONS[name] for name in _third_party_imports(serving)}
    # Streamable HTTP (uvicorn, and redis for a shared store) is imported only by
    # `--http`, from the http extra (which adds uvicorn's optional speed-ups).
    http = _names(meta["optional-dependencies"]["http"])
    assert imported >= HTTP_ONLY
    assert http >= HTTP_ONLY
    tasks = _names(meta["optional-dependencies"]["tasks"])
    assert imported >= TASK_ENGINE_ONLY == tasks
    runtime = imported - http - tasks
    assert runtime == _names(meta["dependencies"])
    assert runtime == {"jsonschema-rs", "orjson", "typing-extensions"}
    # Protocol models are opt-in (`protocol-models = true`): a first build is the tools'.
    assert not (package / "protocol").exists()
    # The `protocol` extra is what those models import.
    models_module = tmp_path / "models.py"
    newest = specs.revision_names()[-1]
    models_module.write_text(render_protocol_module(specs.load(newest)), encoding="utf-8")
    models = {DISTRIBUTIONS[name] for name in _third_party_imports([models_module])}
    assert models == _names(meta["optional-dependencies"]["protocol"]) == {"pydantic"}
    client = {DISTRIBUTIONS[name] for name in _third_party_imports(
        [package / name for name in sorted(CLIENT_MODULES)]
    )}  # fmt: skip
    assert (
        client - runtime
        == _names(meta["optional-dependencies"]["client"])
        == {"mcp", "anyio", "pydantic"}
    )
    dev = meta["optional-dependencies"]["dev"]
    assert f"{DISTRIBUTION}=={__version__}" in dev
    assert {"pytest", "mcp"} <= _names(dev)
    assert meta["name"] == "demo-server"
    assert document["tool"]["mcp-codegen"]["package"] == NAME
    assert "revisions" not in document["tool"]["mcp-codegen"], "default: every revision"
    assert document["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == [NAME]


def test_runtime_bounds_follow_mcp_codegen_itself() -> None:
    # The generator's own pyproject lists the generated servers' runtime; keep one truth.
    ours = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = ours["optional-dependencies"]
    for requirements, listed in (
        (scaffold.RUNTIME_DEPENDENCIES, ours["dependencies"]),
        (scaffold.HTTP_DEPENDENCIES, extras["dev"]),
        (scaffold.TASK_ENGINE_DEPENDENCIES, extras["dev"]),
        (scaffold.PROTOCOL_DEPENDENCIES, [*extras["dev"], *ours["dependencies"]]),
    ):
        by_name = {re.split(r"[<>=!~ ]", r, maxsplit=1)[0]: r for r in listed}
        for requirement in requirements:
            name = re.split(r"[<>=!~]", requirement, maxsplit=1)[0]
            # every one is listed there: a renamed or dropped dependency fails, not skips
            assert by_name.get(name) == requirement, (name, sorted(by_name))


def test_pre_commit_config_is_a_local_hook_on_the_right_files(project: Path) -> None:
    text = (project / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    config = yaml.safe_load(text)
    offered = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (repo,) = config["repos"]
    assert repo["repo"] == "local", "works before mcp-codegen is published anywhere"
    (hook,) = repo["hooks"]
    assert hook["id"] == scaffold.HOOK_ID == offered[0]["id"]
    assert (hook["entry"], hook["language"]) == ("mcp-codegen check", "python")
    assert hook["additional_dependencies"] == [current_source().requirement]
    assert hook["pass_filenames"] is False
    # The remote form, documented for when the generator is published with tags.
    assert f"#     rev: v{__version__}\n#     hooks:\n#       - id: {scaffold.HOOK_ID}" in text
    # No file filter frozen at scaffold time: a content file a resource names later (any
    # folder, any format) would be missed; `check` knows the build's inputs itself.
    for one in (hook, offered[0]):
        assert one["always_run"] is True and one["pass_filenames"] is False
        assert "files" not in one and "types" not in one
    assert "files: ^(pyproject" not in text.split("mcp-codegen-breaking")[0]


def test_black_and_ruff_leave_generated_files_alone_and_find_nothing(
    tmp_path: Path,
) -> None:
    root = scaffold.scaffold(NAME, tmp_path / "p", ["2026-07-28"])
    tools = Path(sys.executable).parent
    # The project's own configuration (no --isolated): what `black .` and `ruff check .`
    # do in it. Caches outside the project, so the listing below stays the project's.
    env = {
        **os.environ,
        "RUFF_CACHE_DIR": str(tmp_path / "ruff"),
        "BLACK_CACHE_DIR": str(tmp_path / "black"),
    }
    _run(tools / "ruff", "check", ".", cwd=root, env=env)
    _run(tools / "black", "--check", ".", cwd=root, env=env)
    listed = _run(tools / "ruff", "check", "--show-files", ".", cwd=root, env=env)
    linted = {Path(line).relative_to(root).as_posix() for line in listed.split()}
    assert {f for f in linted if f.startswith(f"{NAME}/")} == {f"{NAME}/handlers.py"}
    assert "tests/test_server.py" in linted
    # Files named on the command line too (as pre-commit hooks pass them).
    generated = sorted(
        p.relative_to(root).as_posix()
        for p in (root / NAME).rglob("*.py")
        if p.name != "handlers.py" and "__pycache__" not in p.parts
    )
    assert f"{NAME}/_dispatch.py" in generated and f"{NAME}/types.py" in generated
    _run(tools / "ruff", "check", *generated, cwd=root, env=env)
    verbose = subprocess.run(
        [tools / "black", "--check", "-v", *generated],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verbose.returncode == 0, verbose.stderr
    assert "No Python files are present to be formatted" in verbose.stderr
    _run(tools / "black", ".", cwd=root, env=env)
    _run(tools / "ruff", "check", "--fix", ".", cwd=root, env=env)
    assert run_cli("check", str(root))[:2] == (0, "generated code is up to date\n")


def test_readme_says_how_to_run_test_regenerate_and_add_a_tool(project: Path) -> None:
    readme = (project / "README.md").read_text(encoding="utf-8")
    for needed in (
        f"python -m {NAME}",
        "pytest",
        "mcp-codegen build",
        "mcp-codegen check",
        "## Add a tool",
        "pre-commit install",
        'pip install -e ".[dev]"',
    ):
        assert needed in readme, needed
    assert "{{" not in readme and "{%" not in readme


def test_examples_cover_structured_output_and_content(project: Path) -> None:
    greet = (project / "tools" / "greet.json").read_text(encoding="utf-8")
    stats = (project / "tools" / "word_stats.json").read_text(encoding="utf-8")
    assert "outputSchema" in stats and "outputSchema" not in greet
    types = (project / NAME / "types.py").read_text(encoding="utf-8")
    assert "WordStatsOutput" in types and "WordStatsMostCommonItem" in types


def test_handlers_and_tests_are_strictly_typed_and_lint_clean(
    project: Path, tmp_path: Path
) -> None:
    tools = Path(sys.executable).parent
    targets = (f"{NAME}/handlers.py", "tests")
    # The dev extra installs mypy in a range holding the version this repository pins, and
    # the README's "Type-check" runs it: that command, as written, passes.
    settings = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    (mypy,) = [r for r in settings["project"]["optional-dependencies"]["dev"] if "mypy" in r]
    pinned = re.search(r"^mypy==(\S+)$", (REPO / "constraints.txt").read_text(), re.MULTILINE)
    assert pinned is not None and SpecifierSet(mypy.removeprefix("mypy")).contains(pinned[1])
    readme = (project / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Type-check") :]
    start = section.index("```sh\n") + len("```sh\n")
    command = section[start : section.index("\n```", start)]
    assert command == f"mypy --strict {' '.join(targets)}"
    assert "wrong return" in section
    cache = ("--cache-dir", str(tmp_path / "mypy"))
    _run(tools / "mypy", "--strict", *cache, *command.split()[2:], cwd=project)
    rules = ("--select", "E,F,W,I,B,UP,SIM,RUF", "--line-length", "100")
    _run(tools / "ruff", "check", "--isolated", "--no-cache", *rules, *targets, cwd=project)


def test_its_tests_pass_and_they_follow_the_revisions_chosen(tmp_path: Path) -> None:
    # Up to 2025-06-18 invalid arguments are a JSON-RPC error, later a tool error: the
    # project's server tests accept the form of the revision negotiated. 2024-10-07, which
    # the SDK client does not speak, gets tests that speak it over raw stdio.
    for revision in ("2024-10-07", "2025-06-18", "2026-07-28"):
        root = tmp_path / revision
        scaffold.scaffold(NAME, root, [revision])
        out = _run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=root)
        assert "12 passed" in out
    raw = tmp_path / "2024-10-07" / "tests" / "test_server.py"
    assert '"toolResult"' in raw.read_text(encoding="utf-8")
    tools = Path(sys.executable).parent
    cache = ("--cache-dir", str(tmp_path / "mypy"))
    _run(tools / "mypy", "--strict", *cache, "tests", cwd=raw.parents[1])
    rules = ("--select", "E,F,W,I,B,UP,SIM,RUF", "--line-length", "100")
    _run(tools / "ruff", "check", "--isolated", "--no-cache", *rules, "tests", cwd=raw.parents[1])


def test_server_tests_use_the_sdk_client_for_the_revisions_it_negotiates() -> None:
    from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

    assert scaffold.SDK_CLIENT_REVISIONS == KNOWN_PROTOCOL_VERSIONS


# --------------------------------------------------------------------------- fresh venv


def _run(
    *argv: str | Path,
    cwd: Path | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> str:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout


async def _serve_to_official_client(python: Path, cwd: Path) -> dict[str, Any]:
    server = StdioServerParameters(command=str(python), args=["-m", NAME], cwd=cwd)
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        initialized = await session.initialize()
        listed = await session.list_tools()
        greet = await session.call_tool("greet", {"name": "Grace"})
        stats = await session.call_tool("word_stats", {"passage": "a b a", "top": 1})
        divide = await session.call_tool("divide", {"dividend": 1, "divisor": 0})
        return {
            "server": initialized.server_info.name,
            "tools": sorted(tool.name for tool in listed.tools),
            "greet": [block.model_dump(exclude_none=True) for block in greet.content],
            "stats": stats.structured_content,
            "divide": divide.is_error,
        }


@pytest.fixture
def fresh_venv(tmp_path: Path) -> Iterator[Path]:
    venv = tmp_path / "venv"
    # No pip inside: the running pip installs into it (`pip --python`), which is faster;
    # no system site-packages: a dependency the project forgets must fail here.
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    yield venv / ("Scripts" if os.name == "nt" else "bin") / "python"


def test_installs_in_a_fresh_venv_serves_the_official_client_and_passes_its_tests(
    project: Path, fresh_venv: Path, tmp_path: Path
) -> None:
    document = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pip = (sys.executable, "-m", "pip", "--python", fresh_venv, "install", "--quiet", "--no-input")
    # The project itself without its extras, then exactly the run-time dependencies it
    # declares: what a host needs to serve it. (Its README's full set-up, generator and
    # dev extra included, is followed as written by the tests below and in test_readme.)
    _run(*pip, "--no-deps", project, timeout=180)
    _run(*pip, *document["dependencies"], timeout=180)

    # From outside the project folder, so the installed copy is what runs.
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    seen = asyncio.run(asyncio.wait_for(_serve_to_official_client(fresh_venv, outside), 60))
    assert seen == {
        "server": "demo-server",
        "tools": ["delete_draft", "divide", "greet", "word_stats"],
        "greet": [{"type": "text", "text": "Hello, Grace."}],
        "stats": {
            "words": 3,
            "characters": 5,
            "lines": 1,
            "most_common": [{"word": "a", "count": 2}],
        },
        "divide": True,
    }
    located = _run(fresh_venv, "-c", f"import {NAME}; print({NAME}.__file__)", cwd=outside)
    assert Path(located.strip()).is_relative_to(fresh_venv.parent.parent)
    # It served without pydantic: the protocol models stay an extra.
    probe = subprocess.run([fresh_venv, "-c", "import pydantic"], capture_output=True)
    assert probe.returncode != 0


def test_from_a_wheel_a_new_project_installs_by_its_readme_and_passes_its_tests(
    tmp_path: Path,
) -> None:
    # The generator as a user gets it from a wheel: built from this checkout, installed
    # into an environment of its own, and only then asked for a project.
    dist = tmp_path / "dist"
    _run(
        sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", dist, REPO, timeout=600
    )
    (wheel,) = dist.glob("*.whl")
    generator = tmp_path / "generator-env"
    _run(sys.executable, "-m", "venv", "--without-pip", generator)
    python = generator / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", wheel, timeout=900)
    out = _run(
        generator / "bin" / "mcp-codegen", "new", NAME, "--revision", "2026-07-28", cwd=tmp_path
    )
    requirement = f"{DISTRIBUTION} @ {wheel.as_uri()}"
    assert f"pip install '{requirement}'" in out
    project = tmp_path / NAME

    readme = (project / "README.md").read_text(encoding="utf-8")
    setup = markdown_block(readme, "## Set up", "sh")
    assert f"pip install '{requirement}'" in setup
    hook = yaml.safe_load((project / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert hook["repos"][0]["hooks"][0]["additional_dependencies"] == [requirement]
    # The README's set-up, as written, then its tests and a check by the generator it got.
    script = setup + "pytest -p no:cacheprovider\nmcp-codegen check\n"
    done = run_in_fresh_shell(script, project, tmp_path)
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert " 12 passed" in done.stdout
    assert done.stdout.endswith("generated code is up to date\n")
    origin = _run(
        project / ".venv" / "bin" / "python",
        "-c",
        "from mcp_schemagen.install_source import current_source; print(current_source().origin)",
    )
    assert origin.strip() == f"the wheel {wheel}"


def test_its_tool_list_test_follows_the_tool_files_and_fails_readably(tmp_path: Path) -> None:
    root = scaffold.scaffold(NAME, tmp_path / "p", ["2026-07-28"])
    shout = {
        "name": "shout",
        "description": "Say it louder.",
        "inputSchema": {"type": "object", "properties": {"words": {"type": "string"}}},
    }
    (root / "tools" / "shout.yaml").write_text(yaml.safe_dump(shout), encoding="utf-8")
    assert run_cli("build", "-q", str(root))[0] == 0
    selected = ("-q", "-p", "no:cacheprovider", "tests/test_server.py", "-k", "lists_every_tool")
    assert "1 passed" in _run(sys.executable, "-m", "pytest", *selected, cwd=root)
    # A tool file the server does not serve yet (not built): the test says which, plainly.
    (root / "tools" / "whisper.json").write_text(json.dumps({**shout, "name": "whisper"}))
    failed = subprocess.run(
        [sys.executable, "-m", "pytest", *selected], cwd=root, capture_output=True, text=True
    )
    assert failed.returncode == 1, failed.stdout
    assert "ExceptionGroup" not in failed.stdout
    assert "AssertionError" in failed.stdout or "assert [" in failed.stdout
    assert "'whisper'" in failed.stdout


@pytest.mark.parametrize("revisions", [None, ["2024-11-05"], ["2025-06-18", "2026-07-28"]])
def test_a_fresh_project_builds_without_a_warning(
    revisions: list[str] | None, tmp_path: Path
) -> None:
    root = scaffold.scaffold(NAME, tmp_path / "p", revisions)
    assert [str(w) for w in plan(root).warnings] == []
    (root / NAME / "_manifest.json").unlink()  # a full build, as after a change
    code, _, err = run_cli("build", str(root))
    assert code == 0
    assert [line for line in err.splitlines() if "compiling" not in line] == []
