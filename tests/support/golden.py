"""Expected files (goldens, merge cases) are rewritten only on purpose, on a developer's
machine: a variable such as ``UPDATE_GOLDEN=1`` asks for it. Under CI (``CI=true``, see
tests/skips.py) the request fails the test instead, so a variable set by accident there
cannot turn changed output into a pass."""

from __future__ import annotations

import os

import pytest

from tests.skips import CI_ENV, under_ci


def rewriting(variable: str) -> bool:
    """Whether ``variable`` asks this run to rewrite the expected files (any value but
    empty or ``0``); under CI it fails the calling test, rewriting nothing."""
    value = os.environ.get(variable, "").strip()
    if value in ("", "0"):
        return False
    if under_ci():
        pytest.fail(
            f"{variable}={value} is set under CI ({CI_ENV}={os.environ[CI_ENV]}): expected files"
            f" are never rewritten there; unset {variable} (rewrite them on your machine, on"
            " purpose, and commit the reviewed diff)",
            pytrace=False,
        )
    return True
