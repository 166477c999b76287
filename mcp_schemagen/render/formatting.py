"""The pinned ruff formatter over generated modules, with settings fixed here (never read
from the user's project: ``--isolated``) so the same input gives the same bytes everywhere.

ruff, not black: on the same modules it is about 100 times faster (bench/bench_build.py
prints both), which made formatting, once half of a build, a rounding error. Its layout is
black's style; the pinned version is part of the generator's fingerprint like every other
dependency that shapes our bytes. Many modules go to one ruff process, which formats them
on every core; each distinct text is formatted once.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path

# Every option that shapes the output; the rest are ruff's defaults, which are black's.
OPTIONS = ("--isolated", "--line-length", "100", "--target-version", "py311")


class FormatError(RuntimeError):
    """ruff refused a module: the generator produced invalid Python (a bug of ours)."""


@cache
def _ruff() -> str:
    beside = Path(sys.executable).parent / ("ruff.exe" if os.name == "nt" else "ruff")
    if beside.is_file():
        return str(beside)
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    found: str = os.fsdecode(find_ruff_bin())
    return found


def format_python(source: str) -> str:
    """ruff's output for one module."""
    completed = subprocess.run(
        [_ruff(), "format", *OPTIONS, "--stdin-filename", "module.py", "-"],
        input=source.encode("utf-8"),
        capture_output=True,
        check=False,
    )
    if completed.returncode != 0:
        raise FormatError(completed.stderr.decode("utf-8", "replace").strip())
    return completed.stdout.decode("utf-8")


def format_modules(sources: Sequence[str]) -> list[str]:
    """ruff's output for each module, in order: one process for all of them, each
    distinct text formatted once."""
    distinct = list(dict.fromkeys(sources))
    if len(distinct) <= 1:
        return [format_python(source) for source in sources[:1]] * len(sources)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as folder:
        paths = [Path(folder) / f"m{index}.py" for index in range(len(distinct))]
        for path, source in zip(paths, distinct, strict=True):
            path.write_bytes(source.encode("utf-8"))
        completed = subprocess.run(
            [_ruff(), "format", "--no-cache", *OPTIONS, folder],
            capture_output=True,
            check=False,
        )
        if completed.returncode != 0:
            raise FormatError(completed.stderr.decode("utf-8", "replace").strip())
        formatted = {
            source: path.read_bytes().decode("utf-8")
            for path, source in zip(paths, distinct, strict=True)
        }
    return [formatted[source] for source in sources]
