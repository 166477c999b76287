"""Reading the documentation site's pages (docs/) as tests that run their text do: a
page, a section of it by heading, a fenced block of a section, and every fenced block
with the info string and marker comment it carries."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import REPO
from tests.support.shell import markdown_block

DOCS = REPO / "docs"

# A fenced block opens with ``` and an info string (language, then attributes such as
# title="pyproject.toml"), and closes with ``` at the same indentation.
_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
# The comment on the line before a block that says how the block is kept true:
# <!-- illustrative: why --> or <!-- tested: tests/PATH.py -->
_MARK = re.compile(r"<!--\s*(illustrative|tested)(?::\s*((?:(?!-->).)*?))?\s*-->\s*\Z", re.S)


def page(relative: str) -> str:
    """The Markdown source of ``docs/relative``."""
    return (DOCS / relative).read_text(encoding="utf-8")


def block(relative: str, heading: str, language: str) -> str:
    """The first ``language`` block under ``heading`` (e.g. "## Worked example") of a page."""
    return markdown_block("\n" + page(relative), heading, language)


def section(relative: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading, whitespace collapsed."""
    text = "\n" + page(relative)
    start = text.index(f"\n{heading}\n")
    end = text.find("\n#", start + len(heading) + 2)
    return " ".join(text[start : end if end >= 0 else len(text)].split())


@dataclass(frozen=True)
class Fenced:
    path: Path
    line: int
    language: str
    attributes: dict[str, str]
    body: str
    mark: str | None  # "illustrative", "tested" or None
    mark_detail: str


def fenced_blocks(path: Path) -> list[Fenced]:
    """Every fenced block of a Markdown file, in order."""
    text = path.read_text(encoding="utf-8")
    found: list[Fenced] = []
    for match in _FENCE.finditer(text):
        info = match.group("info").strip()
        language, _, rest = info.partition(" ")
        attributes = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        before = text[: match.start()].rstrip()
        marked = _MARK.search(before[-400:])
        indent = match.group("indent")
        body = "".join(
            line[len(indent) :] if line.startswith(indent) else line
            for line in match.group("body").splitlines(keepends=True)
        )
        found.append(
            Fenced(
                path=path,
                line=text.count("\n", 0, match.start()) + 1,
                language=language,
                attributes=attributes,
                body=body,
                mark=marked.group(1) if marked else None,
                mark_detail=(marked.group(2) or "") if marked else "",
            )
        )
    return found
