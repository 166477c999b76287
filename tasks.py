#!/usr/bin/env python3
"""Set-up and the two everyday jobs, with nothing but a Python >= 3.11 on the machine.

    python3 tasks.py example   # build the embedded example into generated/ and list it
    python3 tasks.py test      # lint, type-check and run the whole test suite

Each command creates .venv and installs the project into it when pyproject.toml has
changed since the last install, so a fresh clone needs nothing else.
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
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.is_file() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print(f"creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    _run(BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    _run(BIN / "python", "-m", "pip", "install", "--quiet", "-e", ".[dev]")
    STAMP.write_text(wanted)


def example() -> None:
    # The example generates into ../generated, beside it: outside its own project folder.
    _run(BIN / "mcp-codegen", "build", "--allow-outside-project", "example")
    print(
        "\nServe it over stdio:  cd generated && ../.venv/bin/python -m example_server"
        "\nIts handlers:         generated/example_server/handlers.py"
    )


def test() -> None:
    _run(BIN / "ruff", "check", "mcp_schemagen", "tests", "bench", "tasks.py")
    _run(BIN / "mypy", "mcp_schemagen")
    _run(BIN / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *sys.argv[2:])


JOBS = {"example": example, "test": test}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in JOBS:
        print(__doc__)
        sys.exit(2)
    _ensure_environment()
    JOBS[sys.argv[1]]()
