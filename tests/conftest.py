"""Shared test set-up: where ../shared is, and a spec mirror for every test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SHARED_SPECS = SHARED / "specs"
TEST_SUITE = SHARED / "json-schema-test-suite"

needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(),
    reason="needs the project's shared material (../shared) beside the checkout",
)


@pytest.fixture(autouse=True, scope="session")
def _spec_sources(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every test reads protocol schemas from ../shared/specs (when present) and caches
    into a private folder, so no test depends on or pollutes the user's cache."""
    if "MCP_CODEGEN_SPEC_MIRROR" not in os.environ and SHARED_SPECS.is_dir():
        os.environ["MCP_CODEGEN_SPEC_MIRROR"] = str(SHARED_SPECS)
    os.environ["MCP_CODEGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("mcp-codegen-cache"))
