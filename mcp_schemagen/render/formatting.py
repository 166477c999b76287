"""The pinned ruff over generated modules: its isort rules (``I``) and ``__all__`` order
(``RUF022``) fixed, then its formatter, with settings fixed here (never read from the
user's project: ``--isolated``, run from an empty folder) so the same input gives the same
bytes everywhere.

ruff, not black: on the same modules it is far faster (bench/bench_build.py measures both;
docs/benchmarks.md has the figure of its last run), which made formatting, once half of a
build, a rounding error. Its layout is
black's style; the pinned version is part of the generator's fingerprint like every other
dependency that shapes our bytes. Many modules go to one pair of ruff processes (sort, then
format), which work on every core; each distinct text is formatted once.
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
# Generated modules put their imports together from several sources (templates, type
# generation, aliases); ruff's own isort puts them in order, and __all__ with them.
SORT = ("check", "--select", "I,RUF022", "--fix", "--exit-zero", "--quiet", "--no-cache")


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


def _run(arguments: Sequence[str], folder: str, source: bytes | None = None) -> bytes:
    # From the folder of the modules alone: isort tells first-party modules by what it
    # finds beside them, which must never be the user's working folder.
    completed = subprocess.run(
        [_ruff(), *arguments], input=source, capture_output=True, check=False, cwd=folder
    )
    if completed.returncode != 0:
        raise FormatError(completed.stderr.decode("utf-8", "replace").strip())
    return completed.stdout


def format_python(source: str) -> str:
    """ruff's output for one module, imports sorted (two processes; for many modules,
    format_modules runs two in all)."""
    stdin = ("--stdin-filename", "module.py", "-")
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as folder:
        data = source.encode("utf-8")
        if _has_imports(source):
            data = _run([*SORT, *OPTIONS, *stdin], folder, data)
        return _run(["format", *OPTIONS, *stdin], folder, data).decode("utf-8")


def format_unsorted(source: str) -> str:
    """ruff's formatter alone over one module (one process): for code whose imports are
    in order already, such as a handler's signature."""
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as folder:
        stdin = ("--stdin-filename", "module.py", "-")
        return _run(["format", *OPTIONS, *stdin], folder, source.encode("utf-8")).decode("utf-8")


def _has_imports(source: str) -> bool:
    return "import " in source or "__all__" in source


def format_modules(sources: Sequence[str], *, sort: bool = True) -> list[str]:
    """ruff's output for each module, in order, imports sorted unless ``sort`` is false:
    one process to sort and one to format all of them, each distinct text once."""
    distinct = list(dict.fromkeys(sources))
    if len(distinct) <= 1:
        one = format_python if sort else format_unsorted
        return [one(source) for source in sources[:1]] * len(sources)
    with tempfile.TemporaryDirectory(prefix="mcp-codegen-format-") as folder:
        modules = Path(folder) / "modules"
        modules.mkdir()
        paths = [modules / f"m{index}.py" for index in range(len(distinct))]
        for path, source in zip(paths, distinct, strict=True):
            path.write_bytes(source.encode("utf-8"))
        if sort:
            _run([*SORT, *OPTIONS, "modules"], folder)
        _run(["format", "--no-cache", *OPTIONS, "modules"], folder)
        formatted = {
            source: path.read_bytes().decode("utf-8")
            for path, source in zip(paths, distinct, strict=True)
        }
    return [formatted[source] for source in sources]
