"""Every Python and shell block of the README and the site is either run by a test or
marked illustrative on purpose (docs/development.md, "Code blocks"); the README stays
short."""

from __future__ import annotations

from pathlib import Path

from tests.support.docs import DOCS, fenced_blocks
from tests.support.paths import REPO

RUNNABLE = {"python", "py", "sh", "bash", "console", "shell", "pycon"}
README_MOST_LINES = 250


def _pages() -> list[Path]:
    pages = [REPO / "README.md"]
    for path in sorted(DOCS.rglob("*.md")):
        first = path.relative_to(DOCS).parts[0]
        # the tutorial is run whole by test_tutorial.py; incoming notes are not pages yet
        if first not in {"hooks", "incoming"} and path.name != "tutorial.md":
            pages.append(path)
    return pages


def _name(path: Path) -> str:
    return "README.md" if path == REPO / "README.md" else path.relative_to(DOCS).as_posix()


def test_every_runnable_block_is_tested_or_marked_illustrative() -> None:
    unmarked, wrong = [], []
    for path in _pages():
        for found in fenced_blocks(path):
            if found.language not in RUNNABLE:
                continue
            where = f"{_name(path)}:{found.line}"
            if found.mark is None:
                unmarked.append(where)
            elif found.mark == "illustrative" and not found.mark_detail:
                wrong.append(f"{where}: say why it is illustrative")
            elif found.mark == "tested":
                test = found.mark_detail.split()[0] if found.mark_detail else ""
                test_file = REPO / test
                if not test.startswith("tests/") or not test_file.is_file():
                    wrong.append(f"{where}: no test file {test!r}")
                elif _name(path) not in test_file.read_text(encoding="utf-8"):
                    wrong.append(f"{where}: {test} does not read {_name(path)}")
    assert not unmarked, f"blocks neither tested nor marked illustrative: {unmarked}"
    assert not wrong, wrong


def test_an_unmarked_block_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# P\n\n<!-- illustrative: a fragment -->\n```python\nx = 1\n```\n\n"
        "```sh\nls\n```\n\n  <!-- tested: tests/docs/test_code_blocks.py -->\n  ```console\n"
        "  $ ls\n  ```\n",
        encoding="utf-8",
    )
    marks = [(b.language, b.mark, b.mark_detail) for b in fenced_blocks(page)]
    assert marks == [
        ("python", "illustrative", "a fragment"),
        ("sh", None, ""),
        ("console", "tested", "tests/docs/test_code_blocks.py"),
    ]


def test_the_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MOST_LINES, f"README.md has {lines} lines; move text into docs/"
