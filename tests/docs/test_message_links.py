"""What the generator and a generated server tell a user to read points at pages of the
documentation site that exist, never at README sections (the README is short and links to
the site; its old sections are gone)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import REPO

# A page of the site's sections (a scaffold's own docs/style-guide.md is no such page).
SITE_PAGE = re.compile(r"(?<![\w/])docs/(?:how-to|reference|explanation)/[\w-]+\.md")
README_SECTION = re.compile(r"README(?:\.md)?(?::\s*[A-Z]|,\s*\"[A-Z])")


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def user_facing_strings() -> Iterator[tuple[Path, int, str]]:
    """Every string literal of the package's code (f-string parts included; docstrings and
    comments are for its readers, not its users)."""
    for path in sorted((REPO / "mcp_schemagen").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in skipped
            ):
                yield path.relative_to(REPO), node.lineno, node.value


def test_messages_name_no_readme_section() -> None:
    stale = [
        f"{path}:{line}: {text!r}"
        for path, line, text in user_facing_strings()
        if README_SECTION.search(text)
    ]
    assert stale == [], "point these at a page of docs/ instead:\n" + "\n".join(stale)


def test_every_site_page_a_message_names_exists() -> None:
    named = [
        (path, line, match.group(0))
        for path, line, text in user_facing_strings()
        for match in SITE_PAGE.finditer(text)
    ]
    pages = {page for _, _, page in named}
    # The messages that send a user to the site (the authorization options, `new`'s
    # next steps) are among them, so this cannot pass by finding nothing.
    assert {"docs/how-to/authorization.md", "docs/how-to/use-from-a-host.md"} <= pages
    missing = [f"{path}:{line}: {page}" for path, line, page in named if not (REPO / page).exists()]
    assert missing == [], "no such page:\n" + "\n".join(missing)
