#!/usr/bin/env python3
"""Set-up and the two everyday jobs, with nothing but a Python >= 3.11 on the machine.

    python3 tasks.py example   # build the embedded example into generated/ and list it
    python3 tasks.py test      # lint, type-check and run the whole test suite
    python3 tasks.py docs      # build the documentation site, strictly, into site/
    python3 tasks.py lock      # re-resolve constraints.txt (on purpose, then test and commit)

Each command creates .venv and installs the project into it, at the versions constraints.txt
locks, when pyproject.toml or constraints.txt has changed since the last install, so a fresh
clone needs nothing else and installs the same versions whatever the package index serves
by then.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".tasks-stamp"
LOCK = ROOT / "constraints.txt"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
SHARED_SPECS = ROOT.parent / "shared" / "specs"


def _run(*argv: str | Path) -> None:
    print("+", " ".join(str(a) for a in argv), flush=True)
    completed = subprocess.run([str(a) for a in argv], cwd=ROOT, env=_environment())
    if completed.returncode != 0:
        sys.exit(completed.returncode)


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # Next to a checkout of the project's shared material (CI, developers) the protocol
    # schemas come from that mirror; elsewhere they are downloaded and verified by sha256.
    if "MCP_CODEGEN_SPEC_MIRROR" not in env and SHARED_SPECS.is_dir():
        env["MCP_CODEGEN_SPEC_MIRROR"] = str(SHARED_SPECS)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def _ensure_environment() -> None:
    digest = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", LOCK):
        digest.update(path.read_bytes())
    wanted = digest.hexdigest()
    if STAMP.is_file() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print(f"creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    _run(BIN / "python", "-m", "pip", "install", "--quiet", "-c", LOCK, "--upgrade", "pip")
    _run(BIN / "python", "-m", "pip", "install", "--quiet", "-c", LOCK, "-e", ".[dev]")
    STAMP.write_text(wanted)


# Releases held below the newest that pyproject.toml admits, each with the reason; `lock`
# applies them after resolving the newest. Remove a hold when its reason is gone.
LOCK_HOLD: dict[str, str] = {
    # None now: jsonschema-rs 0.61's vocabulary answer is recorded by release range in
    # tests/runtime/data/known_validator_failures.toml, and the Redis store sets its own
    # timeouts and connections, tested under every redis-py major the range admits
    # (tests/runtime/test_redis_py_majors.py).
}

LOCK_HEADER = """\
# The versions `python3 tasks.py test` and `python3 tasks.py example` install (pip -c), so a
# fresh clone tests the same code next month as today. Written by `python3 tasks.py lock`
# (newest releases inside pyproject.toml's ranges, then the overrides in tasks.py's LOCK_HOLD
# with their reasons); update it on purpose, in a commit of its own, after the test command
# passes with it.
"""


def lock() -> None:
    """Resolve the newest releases the ranges admit in a scratch venv and write the lock."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mcp-codegen-lock-") as scratch:
        bin_dir = Path(scratch) / ("Scripts" if os.name == "nt" else "bin")
        venv.create(scratch, with_pip=True)
        python = bin_dir / "python"
        _run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
        holds = [f"{name}=={version}" for name, version in sorted(LOCK_HOLD.items())]
        _run(python, "-m", "pip", "install", "--quiet", "-e", ".[dev]", *holds)
        pip_version = subprocess.run(
            [str(python), "-m", "pip", "--version"], capture_output=True, text=True, check=True
        ).stdout.split()[1]
        frozen = subprocess.run(
            [str(python), "-m", "pip", "freeze", "--exclude-editable"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    LOCK.write_text(f"{LOCK_HEADER}pip=={pip_version}\n{frozen}")
    print(f"wrote {LOCK.name}; run `python3 tasks.py test` before committing it")


def _example_page_size() -> int:
    """The example's `page-size`: small on purpose, so that clients see pagination."""
    import tomllib

    settings = tomllib.loads((ROOT / "example" / "pyproject.toml").read_text(encoding="utf-8"))
    size: int = settings["tool"]["mcp-codegen"].get("page-size", 100)
    return size


# What to do after `tasks.py example`: talk to the server, find the CLI, start a project.
EXAMPLE_NEXT_STEPS = f"""
The example server is in generated/example_server/; its handlers are in
generated/example_server/handlers.py.

Talk to it with the official MCP Inspector (Node.js 20 or newer), from generated/:
    cd generated && npx -y @modelcontextprotocol/inspector --cli ../.venv/bin/python -m example_server --method tools/list
    cd generated && npx -y @modelcontextprotocol/inspector ../.venv/bin/python -m example_server   # interactive
The example lists {_example_page_size()} tools per tools/list page (its page-size, to show
pagination): the first command prints the first page and its nextCursor, not every tool;
the interactive page fetches the next pages when asked.
Serve it over stdio yourself (an MCP host does this; see docs/how-to/use-from-a-host.md):
    cd generated && ../.venv/bin/python -m example_server

The CLI is .venv/bin/mcp-codegen (or run `. .venv/bin/activate` first, then `mcp-codegen`).
Start your own project (it prints its next steps; README.md, "Quick start", says more):
    .venv/bin/mcp-codegen new my_server --dir ../my_server
"""


def example() -> None:
    # The example generates into ../generated, beside it: outside its own project folder.
    _run(BIN / "mcp-codegen", "build", "--allow-outside-project", "example")
    print(EXAMPLE_NEXT_STEPS, end="")


def test() -> None:
    _run(BIN / "ruff", "check", "mcp_schemagen", "tests", "bench", "tasks.py", "docs/hooks")
    _run(BIN / "mypy", "mcp_schemagen", "docs/hooks/reference.py")
    _run(BIN / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *sys.argv[2:])


def docs() -> None:
    # Strict (mkdocs.yml): a warning, a broken link or anchor, or a page missing from the
    # navigation fails the build, as tests/docs/test_site_builds.py does in the test command.
    _run(BIN / "mkdocs", "build", "--strict", "--site-dir", ROOT / "site")
    print(f"open {ROOT / 'site' / 'index.html'}")


JOBS = {"example": example, "test": test, "docs": docs}

if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "lock":
        lock()
        sys.exit(0)
    if len(sys.argv) < 2 or sys.argv[1] not in JOBS:
        print(__doc__)
        sys.exit(2)
    _ensure_environment()
    JOBS[sys.argv[1]]()
