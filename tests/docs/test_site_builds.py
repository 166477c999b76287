"""The documentation site builds strictly (mkdocs.yml, as `python3 tasks.py docs` builds
it): no warning, broken link or anchor, or page missing from the navigation; and the
strictness is real: a broken link, a broken anchor or a page left out of the navigation
each fails a build of a copy of the site."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent.parent,  # not the project folder: paths are the config's
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_site_builds_strictly_with_every_page(tmp_path: Path) -> None:
    done = _build(REPO / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr
    built = {
        p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*.html")
    }
    sources = {
        p.relative_to(REPO / "docs").with_suffix(".html").as_posix()
        for p in (REPO / "docs").rglob("*.md")
        if p.relative_to(REPO / "docs").parts[0] not in {"hooks", "incoming"}
    }
    generated = {"reference/commands.html", "reference/handler-api.html"}
    assert sources | generated <= built, sorted((sources | generated) - built)


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ("mkdocs.yml", "README.md"):
        shutil.copy(REPO / name, copy / name)
    shutil.copytree(REPO / "docs", copy / "docs")
    return copy


@pytest.mark.parametrize(
    ("page", "addition", "complaint"),
    [
        ("how-to/prompts.md", "\nSee [nothing](no-such-page.md).\n", "no-such-page.md"),
        (
            "how-to/prompts.md",
            "\nSee [a section](resources.md#no-such-anchor).\n",
            "no-such-anchor",
        ),
        ("stray.md", "# A page no navigation names\n", "stray.md"),
    ],
)
def test_a_broken_link_anchor_or_page_outside_the_navigation_fails(
    tmp_path: Path, page: str, addition: str, complaint: str
) -> None:
    copy = _copy(tmp_path)
    target = copy / "docs" / page
    before = target.read_text(encoding="utf-8") if target.exists() else ""
    target.write_text(before + addition, encoding="utf-8")
    done = _build(copy / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0 and complaint in done.stderr, done.stderr[-3000:]
