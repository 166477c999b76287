"""The bench scripts' figures as images (``--plots DIR``; matplotlib, the ``bench`` extra).

Each script writes SVG bar charts (median, with the rounds' min..max as error bars) and a
markdown fragment naming them, ``DIR/<script>.snippet`` (not ``.md``: the strict site build
would take it for a page missing from the navigation), for docs/benchmarks.md to include
with pymdownx.snippets. ``--plots`` alone writes into docs/benchmarks/. Every image names the commit and the machine it measured. A
``--quick`` run is a smoke test, not a result: its files are named ``quick-*``, each image
says so across it, and git ignores them (docs/benchmarks/.gitignore).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from provenance import commit, machine

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "docs" / "benchmarks"
QUICK_NOTE = "QUICK SMOKE RUN: NOT A RESULT"
# SVG for the docs site (sharp at any size, small); the fragment links the first format.
FORMATS: tuple[str, ...] = ("svg",)


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as error:  # pragma: no cover - the message is the point
        raise SystemExit(
            "--plots needs matplotlib: pip install -c constraints.txt -e '.[bench]'"
        ) from error
    matplotlib.use("Agg")  # files only, no display
    matplotlib.rcParams["svg.hashsalt"] = "mcp-codegen"  # same figures, same bytes
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: small, searchable
    import matplotlib.pyplot as pyplot

    return pyplot


class Figures:
    """The images of one script and the markdown fragment that shows them."""

    def __init__(self, folder: Path, script: str, quick: bool) -> None:
        self.folder = folder
        self.script = script
        self.quick = quick
        self.prefix = "quick-" if quick else ""
        self.lines: list[str] = []
        folder.mkdir(parents=True, exist_ok=True)

    def bars(
        self,
        name: str,
        title: str,
        samples: Mapping[str, Sequence[float]],
        unit: str,
        *,
        note: str = "",
        highlight: Sequence[str] = (),
    ) -> None:
        """Horizontal bars: each label's median, whiskers from its min to its max."""
        pyplot = _pyplot()
        labels = list(samples)
        middles = [statistics.median(samples[label]) for label in labels]
        lows = [m - min(samples[label]) for m, label in zip(middles, labels, strict=True)]
        highs = [max(samples[label]) - m for m, label in zip(middles, labels, strict=True)]
        figure, axes = pyplot.subplots(figsize=(9, 1.4 + 0.45 * len(labels)))
        colours = ["#d95f02" if label in highlight else "#1b9e77" for label in labels]
        axes.barh(labels, middles, xerr=[lows, highs], color=colours, capsize=3)
        axes.invert_yaxis()
        axes.set_xlabel(unit)
        axes.set_title(title, fontsize=11)
        for index, (value, high) in enumerate(zip(middles, highs, strict=True)):
            shown = f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
            axes.annotate(
                shown, (value + high, index), va="center", fontsize=8, xytext=(6, 0),
                textcoords="offset points",
            )  # fmt: skip
        axes.margins(x=0.12)  # room for the last label
        legend = "bar: median; whiskers: min..max of the rounds; orange: ours"
        self._finish(figure, axes, name, title, f"{note}\n{legend}" if note else legend)

    def lines_against(
        self,
        name: str,
        title: str,
        series: Mapping[str, Mapping[int, float]],
        xlabel: str,
        unit: str,
        note: str = "",
    ) -> None:
        """One line per series over a numeric axis (build time against tool count)."""
        pyplot = _pyplot()
        figure, axes = pyplot.subplots(figsize=(9, 4.5))
        for label, points in series.items():
            xs = sorted(points)
            axes.plot(xs, [points[x] for x in xs], marker="o", label=label)
        axes.set_xlabel(xlabel)
        axes.set_ylabel(unit)
        axes.set_title(title, fontsize=11)
        axes.legend(fontsize=8)
        self._finish(figure, axes, name, title, note)

    def _finish(self, figure: Any, axes: Any, name: str, title: str, note: str) -> None:
        footer = f"commit {commit()}; {machine()}"
        if note:
            footer = f"{note}\n{footer}"
        figure.text(0.01, 0.01, footer, fontsize=7, color="#555555", va="bottom")
        if self.quick:
            axes.text(
                0.5, 0.5, QUICK_NOTE, transform=axes.transAxes, fontsize=20, color="red",
                alpha=0.35, ha="center", va="center", rotation=12,
            )  # fmt: skip
        figure.tight_layout(rect=(0, 0.06 + 0.03 * note.count("\n"), 1, 1))
        for suffix in FORMATS:
            path = self.folder / f"{self.prefix}{name}.{suffix}"
            metadata = {"Date": None} if suffix == "svg" else {}
            figure.savefig(path, format=suffix, metadata=metadata, dpi=110)
        path = self.folder / f"{self.prefix}{name}.{FORMATS[0]}"
        _pyplot().close(figure)
        self.lines.append(f"![{title}]({self.folder.name}/{path.name})\n")

    def write_fragment(self) -> Path:
        path = self.folder / f"{self.prefix}{self.script}.snippet"
        heading = f"<!-- written by bench/{self.script}.py --plots; commit {commit()} -->\n"
        if self.quick:
            heading += f"\n**{QUICK_NOTE}** (bench/{self.script}.py --quick)\n"
        path.write_text(heading + "\n" + "\n".join(self.lines))
        print(f"wrote {len(self.lines)} images and {path}")
        return path


def plot_build(
    folder: Path,
    like: Mapping[str, Sequence[float]],
    by_size: Mapping[int, Sequence[tuple[str, float]]],
    *,
    quick: bool,
) -> None:
    figures = Figures(folder, "bench_build", quick)
    figures.bars(
        "build-like-for-like",
        "Cold build beside the work it delegates (median, min..max)",
        like,
        "seconds, fresh process",
        highlight=[name for name in like if name.startswith("ours")],
    )
    if by_size:
        series: dict[str, dict[int, float]] = {}
        for size, rows in by_size.items():
            for label, seconds in rows:
                series.setdefault(label, {})[size] = seconds
        figures.lines_against(
            "build-by-tools", "Build and check time against tool count (medians)", series,
            "tools", "seconds (CLI, spawn included)",
        )  # fmt: skip
    figures.write_fragment()


def plot_rows(
    figures: Figures,
    name: str,
    title: str,
    rows: Mapping[str, Mapping[str, Any]],
    key: str,
    unit: str,
    note: str = "",
) -> None:
    """Bars of one measured key over servers whose rows hold a list of samples per key."""
    samples = {server: row[key] for server, row in rows.items() if row.get(key)}
    if samples:
        figures.bars(
            name, title, samples, unit, note=note,
            highlight=[server for server in samples if server.startswith("ours")],
        )  # fmt: skip
