"""Shared test set-up: a spec mirror and a private cache for every test."""

from __future__ import annotations

import os

import pytest

from tests.support.paths import SHARED_SPECS


@pytest.fixture(autouse=True, scope="session")
def _spec_sources(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every test reads protocol schemas from ../shared/specs (when present) and caches
    into a private folder, so no test depends on or pollutes the user's cache."""
    if "MCP_CODEGEN_SPEC_MIRROR" not in os.environ and SHARED_SPECS.is_dir():
        os.environ["MCP_CODEGEN_SPEC_MIRROR"] = str(SHARED_SPECS)
    os.environ["MCP_CODEGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("mcp-codegen-cache"))


# Skips are reported by category, and fail the run under CI.
pytest_plugins = ["tests.skips"]
