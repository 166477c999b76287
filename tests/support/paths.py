"""Where things are: the checkout, the project's shared material beside it, and a marker
for tests that need that material."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
SHARED_SPECS = SHARED / "specs"
TEST_SUITE = SHARED / "json-schema-test-suite"

needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(),
    reason="needs the project's shared material (../shared) beside the checkout",
)
