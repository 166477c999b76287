"""The README of a project made by `mcp-codegen new` points into this documentation
rather than repeating it: every page it names exists, and the topics it leaves to the
site are named by their page."""

from __future__ import annotations

import re
from pathlib import Path

from mcp_schemagen import scaffold
from tests.support.docs import DOCS


def test_the_scaffold_readme_names_existing_pages(tmp_path: Path) -> None:
    root = scaffold.scaffold("linked", tmp_path / "linked", ["2025-11-25"])
    readme = (root / "README.md").read_text(encoding="utf-8")
    # docs/style-guide.md is the project's own (a resource's content), not a page here
    named = [
        page
        for page in re.findall(r"`docs/([\w/-]+\.md)`", readme)
        if not (root / "docs" / page).exists()
    ]
    assert named, "the README names documentation pages"
    missing = [page for page in named if not (DOCS / page).is_file()]
    assert not missing, missing
    for topic in ("tutorial.md", "how-to/http-and-deployment.md", "how-to/authorization.md"):
        assert topic in named, topic
    assert "breaking-acknowledged.yaml" not in readme, "the breaking-change guide says it"
