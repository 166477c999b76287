"""What every bench script prints with its tables: the commit measured, the machine it ran
on, and each figure as its median with the spread of the rounds; and the interleaving of
peers, so that a change of the machine's load weighs on each alike."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parents[1]
T = TypeVar("T")


def commit() -> str:
    """``git rev-parse --short HEAD``, with ``-dirty`` when tracked files differ from it
    (figures of uncommitted code are not figures of that commit)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=REPO).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}-dirty" if dirty else head


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    """CPU model, cores, Python: enough to tell whether two tables are comparable."""
    return (
        f"{cpu_model()}, {os.cpu_count()} cores, Python {sys.version.split()[0]} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}"
    )


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def stamp() -> str:
    """One line naming the commit and the machine, printed above every table."""
    return f"commit {commit()}; {machine()}; load average {load_average()}"


def interleaved(
    rounds: int, actions: dict[str, Callable[[], T]], *, progress: bool = True
) -> dict[str, list[T]]:
    """Run every action once per round, the order rotated each round (A B C, B C A, C A B,
    ...), so no peer always runs first, after a warm-up, or last, into a change of load."""
    names = list(actions)
    samples: dict[str, list[T]] = {name: [] for name in names}
    for index in range(rounds):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            if progress:
                print(f"  round {index + 1}/{rounds}: {name}", file=sys.stderr, flush=True)
            samples[name].append(actions[name]())
    return samples


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def spread(values: Sequence[float], form: str = "{:,.0f}", unit: str = "") -> str:
    """``median (min..max)`` of the rounds, each in ``form``."""
    low, middle, high = min(values), statistics.median(values), max(values)
    return f"{form.format(middle)}{unit} ({form.format(low)}..{form.format(high)})"
