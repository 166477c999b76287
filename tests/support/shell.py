"""Running a README's shell commands as a user would: a fresh shell, no virtual
environment active, ``python3`` the interpreter running the tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def markdown_block(text: str, heading: str, language: str) -> str:
    """The first ``language`` code block of the Markdown section under ``heading``."""
    section = text.split(f"\n{heading}\n", 1)[1]
    found = re.search(rf"^```{language}\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert found, (heading, language)
    return found.group(1)


def run_in_fresh_shell(
    script: str, cwd: Path, scratch: Path, timeout: float = 1500
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with ``bash -e`` in ``cwd``; ``scratch`` holds the shell's own bin
    folder. pip keeps the machine's cache and index settings."""
    shell_bin = scratch / "fresh-shell-bin"
    shell_bin.mkdir(exist_ok=True)
    python3 = shell_bin / "python3"
    if not python3.exists():
        python3.symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env["PATH"] = f"{shell_bin}{os.pathsep}{env['PATH']}"
    return subprocess.run(
        [shutil.which("bash") or "sh", "-e", "-x", "-c", script],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
