"""The key cache under a hostile or careless issuer, end to end: a generated server with
authorization in front of the test authorization server (tests/support/
authorization_server.py), whose JWKS answers junk keys, no keys, ``Cache-Control:
max-age``, keys rotated in and out, while made-up kids arrive. Nothing here mocks token
checking: every answer is the real server's to a real signed token."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.authorization_server import new_key
from tests.support.authorized_deployment import (
    BASE_SCOPE,
    PACKAGE,
    PROJECT,
    Deployment,
    deployment,
    stateless_call,
)
from tests.support.http_server import build_project

FAST = {"MCP_AUTH_FETCH_TIMEOUT_SECONDS": "1"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(PROJECT, tmp_path_factory.mktemp("auth-keys-build"), PACKAGE)


def status(served: Deployment, token: str) -> int:
    return stateless_call(served.url, token, "whoami").status


def first_time(condition: Callable[[], bool], within: float) -> float:
    """Seconds until ``condition`` first holds (polled), or fails after ``within``."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < within, f"not within {within} s"
        time.sleep(0.25)
    return time.monotonic() - started


# ------------------------------------------------------------------ 1: junk keys


def test_junk_keys_never_displace_the_good_ones(root: Path, tmp_path: Path) -> None:
    with deployment(root, tmp_path, env=FAST) as served:
        issuer = served.issuer
        token = issuer.mint(scope=BASE_SCOPE)
        assert status(served, token) == 200
        # Once, the issuer answers every published kid with a key that does not parse;
        # a token with a kid the cache lacks makes the server fetch that answer.
        issuer.jwks_mode = "junk-keys"
        stray = issuer.mint(scope=BASE_SCOPE, key=new_key(), kid="key-unknown")
        assert status(served, stray) == 503  # the kid may be new: retry, keep the token
        assert issuer.jwks_fetches == 2
        # The good key is still the one in use, for old tokens and new ones.
        assert status(served, token) == 200
        assert status(served, issuer.mint(scope=BASE_SCOPE)) == 200
        log = served.log.read_text()
        assert "holds no usable signing key" in log and "n must be >= 3" in log
        # The JWKS is good again, with a key rotated in: found within seconds.
        issuer.jwks_mode = "ok"
        issuer.extra_keys["key-2"] = rotated = new_key()
        fresh = issuer.mint(scope=BASE_SCOPE, key=rotated, kid="key-2")
        assert first_time(lambda: status(served, fresh) == 200, within=15) < 12
        assert status(served, token) == 200
        assert served.called().count("whoami") >= 4


def test_an_unparseable_entry_for_a_kid_keeps_its_good_key(root: Path, tmp_path: Path) -> None:
    with deployment(root, tmp_path, env=FAST) as served:
        issuer = served.issuer
        token = issuer.mint(scope=BASE_SCOPE)
        assert status(served, token) == 200
        # One answer both rotates a key in and garbles the old kid's entry: the new key
        # is used, and the garbled entry does not displace the old kid's good key.
        issuer.junk_kids = {issuer.kid}
        issuer.extra_keys["key-2"] = rotated = new_key()
        assert status(served, issuer.mint(scope=BASE_SCOPE, key=rotated, kid="key-2")) == 200
        assert issuer.jwks_fetches == 2
        assert status(served, token) == 200
        assert "key 'key-1' skipped" in served.log.read_text()


@pytest.mark.parametrize("mode", ["junk-keys", "no-keys"])
def test_a_first_answer_without_a_usable_key_fails_closed_then_recovers(
    mode: str, root: Path, tmp_path: Path
) -> None:
    with deployment(root, tmp_path, env=FAST) as served:
        issuer = served.issuer
        issuer.jwks_mode = mode
        token = issuer.mint(scope=BASE_SCOPE)
        assert status(served, token) == 503
        assert served.called() == []
        issuer.jwks_mode = "ok"
        assert first_time(lambda: status(served, token) == 200, within=15) < 8
