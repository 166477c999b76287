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


# ------------------------------------------------------------------ 2: max-age, ceiling


def _seconds_until_refused(served: Deployment, token: str) -> float:
    """Rotate: publish a new key and retire the token's key at the issuer now (a JWKS
    with no usable key at all would keep the old set); seconds until the server refuses
    the token."""
    served.issuer.extra_keys["key-2"] = new_key()
    served.issuer.retired.add(served.issuer.kid)
    return first_time(lambda: status(served, token) == 401, within=30)


def test_a_removed_key_is_refused_once_the_issuers_max_age_runs_out(
    root: Path, tmp_path: Path
) -> None:
    with deployment(root, tmp_path, env=FAST) as served:
        issuer = served.issuer
        issuer.jwks_cache_control = "public, max-age=7"
        token = issuer.mint(scope=BASE_SCOPE)
        assert status(served, token) == 200
        waited = _seconds_until_refused(served, token)
        assert 4 <= waited <= 9, waited  # max-age 7 from the first fetch, less the call
        assert "no key 'key-1'" in served.log.read_text()


def test_the_ceiling_holds_an_issuers_long_max_age_and_no_cache_gets_the_floor(
    root: Path, tmp_path: Path
) -> None:
    extra = ("--auth-jwks-max-age", "6")
    with deployment(root, tmp_path, env=FAST, extra=extra) as served:
        served.issuer.jwks_cache_control = "max-age=86400"
        token = served.issuer.mint(scope=BASE_SCOPE)
        assert status(served, token) == 200
        assert 3 <= _seconds_until_refused(served, token) <= 8
    with deployment(root, tmp_path / "no-cache", env=FAST) as served:
        served.issuer.jwks_cache_control = "no-cache"
        token = served.issuer.mint(scope=BASE_SCOPE)
        assert status(served, token) == 200
        fetches = served.issuer.jwks_fetches
        for _ in range(10):  # no refetch per request: the floor, 5 s
            assert status(served, token) == 200
        assert served.issuer.jwks_fetches == fetches
        assert _seconds_until_refused(served, token) <= 7


def test_the_key_age_ceiling_comes_from_the_environment_too(root: Path, tmp_path: Path) -> None:
    env = {**FAST, "MCP_AUTH_JWKS_MAX_AGE_SECONDS": "5"}
    with deployment(root, tmp_path, env=env) as served:
        token = served.issuer.mint(scope=BASE_SCOPE)  # no Cache-Control: the ceiling
        assert status(served, token) == 200
        assert _seconds_until_refused(served, token) <= 7


# ------------------------------------------------------------------ 3: a flood of made-up kids


def test_made_up_kids_cannot_delay_a_real_rotation_beyond_the_refetch_interval(
    root: Path, tmp_path: Path
) -> None:
    """The bound (runtime/auth/keys.py): a key is found at most REFETCH_INTERVAL (10 s)
    plus one fetch after the issuer publishes it, however many made-up kids arrive; and
    they cost the issuer at most one fetch per interval."""
    import threading

    with deployment(root, tmp_path, env=FAST) as served:
        issuer = served.issuer
        assert status(served, issuer.mint(scope=BASE_SCOPE)) == 200
        stop = threading.Event()
        refused: list[int] = []

        def flood() -> None:
            attacker = new_key()
            count = 0
            while not stop.is_set():
                count += 1
                token = issuer.mint(scope=BASE_SCOPE, key=attacker, kid=f"made-up-{count}")
                refused.append(status(served, token))
                time.sleep(0.05)

        flooders = [threading.Thread(target=flood) for _ in range(3)]
        started = time.monotonic()
        for thread in flooders:
            thread.start()
        try:
            time.sleep(1.5)  # the flood has spent the refetch of this interval
            issuer.extra_keys["key-2"] = rotated = new_key()
            published = time.monotonic()
            real = issuer.mint(scope=BASE_SCOPE, key=rotated, kid="key-2")
            waited = first_time(lambda: status(served, real) == 200, within=20)
            assert time.monotonic() - published <= 10 + 2, waited
            time.sleep(max(0.0, 14 - (time.monotonic() - started)))
        finally:
            stop.set()
            for thread in flooders:
                thread.join(timeout=30)
        flooded = time.monotonic() - started
        assert len(refused) > 50 and set(refused) == {401}, set(refused)
        # One fetch at start, then at most one per 10 s of flood (the rotation's included).
        assert issuer.jwks_fetches <= 1 + int(flooded / 10) + 1, issuer.jwks_fetches
        assert status(served, issuer.mint(scope=BASE_SCOPE)) == 200


def test_a_token_arriving_during_a_refetch_waits_for_its_answer(root: Path, tmp_path: Path) -> None:
    """A refetch under way (a made-up kid's) answers for the real token that arrives
    meanwhile: it is not refused for the refetch interval."""
    import threading

    with deployment(root, tmp_path, env={"MCP_AUTH_FETCH_TIMEOUT_SECONDS": "5"}) as served:
        issuer = served.issuer
        assert status(served, issuer.mint(scope=BASE_SCOPE)) == 200
        issuer.extra_keys["key-2"] = rotated = new_key()
        issuer.jwks_delay = 1.5  # the key endpoint answers slowly from now on
        stray = issuer.mint(scope=BASE_SCOPE, key=new_key(), kid="made-up")
        flood = threading.Thread(target=status, args=(served, stray))
        flood.start()
        time.sleep(0.5)  # the made-up kid's refetch is under way
        real = issuer.mint(scope=BASE_SCOPE, key=rotated, kid="key-2")
        assert status(served, real) == 200
        flood.join(timeout=30)
        assert issuer.jwks_fetches == 2


# ------------------------------------------------------------------ 4: typ (RFC 9068 section 4)


def test_only_at_jwt_tokens_are_access_tokens_by_default(root: Path, tmp_path: Path) -> None:
    with deployment(root, tmp_path) as served:
        issuer = served.issuer
        for typ, expected in (
            ("at+jwt", 200),
            ("application/AT+JWT", 200),
            ("JWT", 401),
            ("application/jwt", 401),
            (None, 401),
            ("dpop+jwt", 401),
            ("secevent+jwt", 401),
        ):
            issuer.signing_typ = typ
            assert status(served, issuer.mint(scope=BASE_SCOPE)) == expected, typ
        log = served.log.read_text()
        assert (
            "token type 'JWT' is not at+jwt (RFC 9068 section 4); if issuer "
            f"{issuer.issuer} issues plain JWT access tokens, name it with "
            "--auth-plain-jwt-issuer"
        ) in log
        assert "token type None is not at+jwt" in log
        assert "token type 'dpop+jwt' is not an access token" in log
        assert served.called() == ["whoami", "whoami"]


def test_plain_jwt_tokens_are_accepted_from_the_issuers_named_for_it(
    root: Path, tmp_path: Path
) -> None:
    from tests.support.authorization_server import AuthorizationServer
    from tests.support.http_server import free_port

    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    with AuthorizationServer(resource).running() as issuer:
        extra = ("--auth-plain-jwt-issuer", issuer.issuer)
        with deployment(
            root, tmp_path, extra=extra, issuer=issuer, port=port, resource=resource
        ) as served:
            for typ, expected in (("JWT", 200), (None, 200), ("at+jwt", 200), ("dpop+jwt", 401)):
                issuer.signing_typ = typ
                assert status(served, issuer.mint(scope=BASE_SCOPE)) == expected, typ


# ------------------------------------------------------------------ 7: an outage after keys were cached


@pytest.mark.parametrize("mode", ["hang", "garbage", "no-keys"])
def test_after_keys_were_cached_an_outage_keeps_them_and_a_new_kid_gets_503(
    mode: str, root: Path, tmp_path: Path
) -> None:
    """Tokens signed by a cached key are still accepted; a token with a kid the cache
    lacks cannot be told valid or not: 503 with Retry-After (the client retries with the
    same token), not 401 (which would send it back to the authorization server, down
    too). Once the JWKS answers again, within seconds, the new key is found."""
    with deployment(root, tmp_path, env=FAST) as served:
        issuer = served.issuer
        token = issuer.mint(scope=BASE_SCOPE)
        assert status(served, token) == 200
        issuer.jwks_mode = mode
        issuer.extra_keys["key-2"] = rotated = new_key()
        fresh = issuer.mint(scope=BASE_SCOPE, key=rotated, kid="key-2")
        reply = stateless_call(served.url, fresh, "whoami")
        assert reply.status == 503
        assert reply.headers["retry-after"] == "5"
        assert status(served, token) == 200
        assert "authorization server unavailable" in served.log.read_text()
        issuer.jwks_mode = "ok"
        assert first_time(lambda: status(served, fresh) == 200, within=20) < 15
