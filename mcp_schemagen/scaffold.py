"""`mcp-codegen new`: a project that builds, serves and passes its own tests from its first
minute.

The project's files come from templates/scaffold. Its handler module is written from a
template *before* the first build, so that build merges into it and keeps the example
bodies, exactly as every later build keeps the user's. The whole project is made in a
temporary folder beside the target and moved into place only once it is complete, so a
failure (a protocol schema that cannot be fetched, say) leaves nothing behind and the same
command can simply be run again.
"""

from __future__ import annotations

import dataclasses
import json
import keyword
import os
import re
import secrets
import shlex
import shutil
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Final

import jinja2

from mcp_schemagen import DISTRIBUTION, __version__
from mcp_schemagen.diagnostics import BuildError, error
from mcp_schemagen.install_source import InstallSource, current_source
from mcp_schemagen.package_data import data_dir
from mcp_schemagen.pipeline import plan
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.write.disk import write_all

# What a generated server imports at run time (checked against mcp_schemagen/runtime and the
# generated types by the tests). Same bounds as mcp-codegen's own pyproject.toml.
RUNTIME_DEPENDENCIES: Final = (
    "jsonschema-rs>=0.29,<1",
    "orjson>=3.10,<4",
    "typing-extensions>=4.13",
)
# Only PACKAGE.protocol (models of the protocol messages) imports pydantic; the server never
# loads it, so it is an extra rather than a run-time dependency.
PROTOCOL_DEPENDENCIES: Final = ("pydantic>=2.9,<3",)
# `python -m PACKAGE --http` serves with uvicorn; `--store redis://…` shares sessions
# between workers through redis-py. Imported only on those paths, so they are an extra.
# httptools and uvloop: uvicorn's fast HTTP parser and event loop, used when installed.
# PyJWT[crypto]: access tokens checked by the authorization layer (--auth-*).
HTTP_DEPENDENCIES: Final = (
    "uvicorn>=0.30,<1",
    "httptools>=0.6,<1",
    "uvloop>=0.21,<1",
    "redis>=5,<9",
    "PyJWT[crypto]>=2.10,<3",
)
# `--task-engine taskiq` hands tasks to taskiq's queue in the store's Redis and
# `python -m PACKAGE task-worker` runs them (runtime/tasks/engine*.py); imported only there.
TASK_ENGINE_DEPENDENCIES: Final = ("taskiq>=0.13,<0.14", "taskiq-redis>=1.2,<2")
# PACKAGE.client, the typed client (README, "Typed client"), is built on the official SDK;
# the server never imports it. Below 2.4: the client primes two private fields of the
# SDK's ClientSession (the x-mcp-header map and the output schemas it would list for).
# anyio: the in-process connection's memory streams; pydantic: the task messages of
# _tasks.py (mcp depends on both too).
CLIENT_DEPENDENCIES: Final = ("mcp>=2.3,<2.4", "anyio>=4", "pydantic>=2.9,<3")
# Besides mcp-codegen itself, pinned to the version that generated the package; pre-commit
# runs the hook of .pre-commit-config.yaml. mypy in the range the generated code is checked
# with (constraints.txt pins its version for this repository's tests): the README's
# "Type-check" runs it, the safety net of what handlers return.
DEV_DEPENDENCIES: Final = (
    "pytest>=8",
    "mypy>=2.4.1,<2.5",
    *CLIENT_DEPENDENCIES,
    "pre-commit>=4,<5",
)

# The protocol revisions the official Python SDK client of DEV_DEPENDENCIES negotiates
# (checked against the installed SDK by the tests). The project's server tests drive that
# client when the server speaks one of them; a server that speaks only 2024-10-07, the
# pre-release no SDK client of this generation negotiates, gets tests that speak
# JSON-RPC over stdio themselves.
SDK_CLIENT_REVISIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

HOOK_ID: Final = "mcp-codegen-check"

# (template under templates/scaffold, path in the project). Every template is jinja (the
# folder holds nothing else); dotfiles are stored without their dot so that no packaging
# tool skips them as hidden.
_FILES: Final = (
    ("README.md.jinja", "README.md"),
    ("gitignore.jinja", ".gitignore"),
    ("pre-commit-config.yaml.jinja", ".pre-commit-config.yaml"),
    ("pyproject.toml.jinja", "pyproject.toml"),
    ("handlers.py.jinja", "{package}/handlers.py"),
    ("tests/test_handlers.py.jinja", "tests/test_handlers.py"),
    ("tests/test_server.py.jinja", "tests/test_server.py"),
    ("tools/divide.yaml.jinja", "tools/divide.yaml"),
    ("tools/delete_draft.json.jinja", "tools/delete_draft.json"),
    ("tools/greet.json.jinja", "tools/greet.json"),
    ("tools/word_stats.json.jinja", "tools/word_stats.json"),
    ("prompts/proofread.yaml.jinja", "prompts/proofread.yaml"),
    ("resources/docs.yaml.jinja", "resources/docs.yaml"),
    ("docs/style-guide.md.jinja", "docs/style-guide.md"),
)

_MAX_NAME = 64
# Import names the project's own code, tests or tools load: a package of that name would
# shadow them whenever the project folder is on sys.path (pytest, `python -m` from it).
_TAKEN = frozenset(
    {
        "mcp_schemagen",
        "conftest",
        "hatchling",
        "jsonschema_rs",
        "mcp",
        "orjson",
        "pip",
        "pydantic",
        "pytest",
        "setuptools",
        "tests",
        "tools",
        "typing_extensions",
    }
)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new project, or None when it can.

    The name becomes the import name of the package, a folder name and (with ``-`` for
    ``_``) the distribution name, and it is written into TOML, Python and YAML files; so
    only ASCII letters, digits and underscores pass, which also keeps every path and shell
    character out."""
    if not name:
        return "the name is empty"
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c == "_"))})
    if bad:
        shown = ", ".join(_describe(c) for c in bad)
        return f"{shown} cannot appear in a Python package name (letters, digits and _ only)"
    if not name[0].isalpha():
        return "it must start with a letter"
    if name.endswith("_"):
        invalid = _distribution(name)
        return f"it must end with a letter or digit (the distribution name {invalid!r} is invalid)"
    if len(name) > _MAX_NAME:
        return f"it is longer than {_MAX_NAME} characters"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "it is a Python keyword"
    if name in sys.stdlib_module_names:
        return f"it would shadow the standard library module {name!r}"
    if name in _TAKEN:
        return f"it would shadow the {name!r} package the server, its tests or its tools import"
    return None


def _describe(character: str) -> str:
    if character == " ":
        return "a space"
    if character in "/\\":
        return f"{character!r} (a path separator)"
    return repr(character)


def _suggestion(name: str) -> str | None:
    candidate = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()
    if candidate and not candidate[0].isalpha():
        candidate = f"server_{candidate}"
    if candidate and candidate != name and name_problem(candidate) is None:
        return candidate
    return None


def check_name(name: str) -> None:
    problem = name_problem(name)
    if problem is None:
        return
    suggestion = _suggestion(name)
    hint = f"; try {suggestion}" if suggestion else "; e.g. weather_server"
    # The name goes in the message as a repr: it may hold control or shell characters that
    # must not reach the terminal as they are.
    raise BuildError([error("NAME", "", f"{name!r} is not a valid project name: {problem}{hint}")])


def _distribution(name: str) -> str:
    return name.replace("_", "-")


def setup_commands(source: InstallSource) -> tuple[str, ...]:
    """The commands that set a new project up in a fresh shell, in its folder: the
    README's "Set up" block and what `mcp-codegen new` prints are both these."""
    return (
        "python3 -m venv .venv",
        ". .venv/bin/activate",
        f"pip install {shlex.quote(source.requirement)}",
        'pip install -e ".[dev]"',
    )


def inspector_commands(package: str, tool: str, arguments: str) -> tuple[str, str]:
    """Talking to a project's server with the official MCP Inspector (Node.js): one call
    from the command line, and the interactive page."""
    server = f".venv/bin/python -m {package}"
    return (
        f"npx -y @modelcontextprotocol/inspector --cli {server} --method tools/call "
        f"--tool-name {tool} --tool-arg {arguments}",
        f"npx -y @modelcontextprotocol/inspector {server}",
    )


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(data_dir("templates") / "scaffold"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # TOML, Python, YAML and Markdown; every value is a checked name
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def project_files(
    root: Path, name: str, revisions: Sequence[str] | None, source: InstallSource | None = None
) -> list[OutputFile]:
    """The files of a new project ``name`` in ``root``, before its first build; its README
    and hook install the generator from ``source`` (default: where the running one came
    from)."""
    generator = source if source is not None else current_source()
    values = {
        "package": name,
        "distribution": _distribution(name),
        "server_name": _distribution(name),
        "generator_version": __version__,
        "generator_distribution": DISTRIBUTION,
        "revisions": json.dumps(list(revisions)) if revisions else "",
        "runtime_dependencies": RUNTIME_DEPENDENCIES,
        "protocol_dependencies": PROTOCOL_DEPENDENCIES,
        "http_dependencies": HTTP_DEPENDENCIES,
        "task_engine_dependencies": TASK_ENGINE_DEPENDENCIES,
        "client_dependencies": CLIENT_DEPENDENCIES,
        "dev_dependencies": DEV_DEPENDENCIES,
        # The same generator, installed the way this one was: a shell word for the README,
        # a YAML (JSON) string for the hook.
        "setup_commands": setup_commands(generator),
        "inspector_commands": inspector_commands(name, "greet", "name=Ada"),
        "generator_requirement_yaml": json.dumps(generator.requirement),
        "generator_origin": generator.origin,
        "generator_repository": generator.repository or "<URL of the mcp-codegen repository>",
        "hook_rev": f"v{__version__}",
        "hook_id": HOOK_ID,
    }
    files = []
    sdk_client = revisions is None or any(r in SDK_CLIENT_REVISIONS for r in revisions)
    for template, target in _FILES:
        if target == "tests/test_server.py" and not sdk_client:
            template = "tests/test_server_toolresult.py.jinja"
        text = _environment().get_template(template).render(**values)
        files.append(OutputFile(root / target.format(package=name), text))
    return files


def _check_target(target: Path) -> None:
    if target.is_dir():
        if any(target.iterdir()):
            message = "the folder exists and is not empty; choose another with --dir"
            raise BuildError([error(str(target), "", message)])
    elif target.exists() or target.is_symlink():
        message = "exists and is not a folder; choose another with --dir"
        raise BuildError([error(str(target), "", message)])


def scaffold(
    name: str,
    directory: Path | None,
    revisions: Sequence[str] | None,
    source: InstallSource | None = None,
) -> Path:
    """Create the project ``name`` in ``directory`` (default ./NAME), built and ready."""
    check_name(name)
    target = directory if directory is not None else Path(name)
    _check_target(target)
    staging = _staging_folder(target, name)
    try:
        write_all(project_files(staging, name, revisions, source))
        try:
            files = plan(staging).files
        except BuildError as failure:
            raise _named_as_target(failure, staging, target) from None
        write_all(files)
        _move_into_place(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _named_as_target(failure: BuildError, staging: Path, target: Path) -> BuildError:
    """The build's errors, naming the user's files rather than the temporary folder, which
    is gone by the time they are read."""
    spellings = sorted({str(staging), str(staging.absolute()), str(staging.resolve())}, key=len)
    shown = str(target)

    def renamed(text: str) -> str:
        for spelling in reversed(spellings):  # longest first, so no prefix is left behind
            text = text.replace(spelling, shown)
        return text

    diagnostics = [
        dataclasses.replace(d, file=renamed(d.file), message=renamed(d.message))
        for d in failure.diagnostics
    ]
    return BuildError(diagnostics, failure.exit_code)


def _staging_folder(target: Path, name: str) -> Path:
    # Beside the target when it is to be created (one rename puts it in place), inside it
    # when it exists (its parent may not be writable). mkdir, unlike mkdtemp, leaves the
    # mode to the umask, so the project folder gets the permissions any new folder would.
    home = target if target.is_dir() else target.absolute().parent
    home.mkdir(parents=True, exist_ok=True)
    for _ in range(100):
        staging = home / f".{name}.{secrets.token_hex(4)}.new"
        try:
            staging.mkdir()
        except FileExistsError:
            continue
        return staging
    raise FileExistsError(f"no free temporary folder name in {home}")


def _move_into_place(staging: Path, target: Path) -> None:
    if not target.exists():
        os.replace(staging, target)
        return
    # An existing empty folder (perhaps the current directory) is filled rather than
    # replaced, so a shell sitting in it keeps a valid working directory.
    for entry in sorted(staging.iterdir()):
        os.replace(entry, target / entry.name)
    staging.rmdir()
