"""An authorization server's metadata and signing keys, discovered from its issuer URL.

Metadata: RFC 8414 (``/.well-known/oauth-authorization-server`` inserted before the
issuer's path), then OpenID Connect discovery (``/.well-known/openid-configuration``
appended, then inserted); the document must name the configured issuer exactly (RFC 8414
section 3.3). Keys: the ``jwks_uri`` it names, cached.

How long the keys are kept: the JWKS answer's ``Cache-Control: max-age``, held between
``MIN_MAX_AGE`` and the configured ceiling (``--auth-jwks-max-age``); without one, the
ceiling. So a key the issuer removes is refused at most that long after (plus one fetch).

What never happens: a key that does not parse displacing one that does. Each JWK is
parsed when it arrives; unusable ones are dropped (a kid whose new entry is unusable keeps
its key from before), and an answer with no usable key at all counts as a failed fetch:
the last good set stays in use and the fetch is tried again ``RETRY_AFTER_FAILURE`` later.

A token signed with a ``kid`` the cache lacks makes one refetch (the server may have
rotated its keys), at most once per ``REFETCH_INTERVAL`` per issuer, so a stream of
made-up ``kid``s cannot turn this server into a load generator against its authorization
server. Such kids cannot delay a real rotation either: every refetch, whoever caused it,
reads the whole current JWKS, and one is allowed every ``REFETCH_INTERVAL``, so a key is
found at most ``REFETCH_INTERVAL`` (plus one fetch) after the issuer publishes it.

Without any keys (the server unreachable, or answering no usable key) every token is
refused with 503: fail closed. With keys fetched before, tokens signed by them are still
accepted, and a token naming a kid they lack gets 503 too while the JWKS cannot be had
(the kid may be new: the client should retry, not drop its token); once a good JWKS
answer lacks the kid, 401.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any
from urllib.parse import urlsplit

from .fetch import FetchError, fetch_json, fetch_json_with_max_age

REFETCH_INTERVAL = 10.0  # seconds between refetches caused by unknown kids
MIN_MAX_AGE = 5.0  # an issuer's max-age (or no-cache) below this is held to it
DEFAULT_MAX_AGE = 600.0  # the ceiling on how long keys are kept (--auth-jwks-max-age)
RETRY_AFTER_FAILURE = 5.0  # a failed discovery or key fetch is tried again after this long
MAX_KEYS = 100
USABLE_KEY_TYPES = ("RSA", "EC")  # the asymmetric algorithms settings.py allows

Keys = dict[str | None, dict[str, Any]]


class IssuerUnavailable(Exception):
    """The authorization server's metadata or keys cannot be had (log it, answer 503)."""


def discovery_urls(issuer: str) -> list[str]:
    parts = urlsplit(issuer)
    origin = f"{parts.scheme}://{parts.netloc}"
    path = parts.path.rstrip("/")
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}{path}/.well-known/openid-configuration",
        f"{origin}/.well-known/openid-configuration{path}",
    ]


class IssuerKeys:
    def __init__(self, issuer: str, timeout: float, max_age: float = DEFAULT_MAX_AGE) -> None:
        self.issuer = issuer
        self.timeout = timeout
        self.max_age = max_age
        self.metadata: dict[str, Any] | None = None
        self._keys: Keys | None = None  # the last good set
        self._expires_at = 0.0  # when the set is fetched again, asked for or not
        self._attempted_at = float("-inf")  # when the last fetch started
        self._refetched_at = float("-inf")  # when an unknown kid last caused a fetch
        self._failed_at = float("-inf")
        self._stale = False  # the last fetch failed: the set may lack new keys
        self._lock = asyncio.Lock()  # discovery
        self._refreshing = asyncio.Lock()  # one key fetch at a time; others wait for it

    async def discover(self) -> dict[str, Any]:
        if self.metadata is not None:
            return self.metadata
        async with self._lock:
            if self.metadata is None:
                self._check_backoff()
                problems = []
                # One timeout for the whole discovery: a server that hangs on the first
                # address would hang on the others too.
                deadline = time.monotonic() + self.timeout
                for url in discovery_urls(self.issuer):
                    if time.monotonic() > deadline:
                        problems.append("no time left for the other addresses")
                        break
                    try:
                        document = await fetch_json(url, self.timeout)
                    except FetchError as exc:
                        problems.append(str(exc))
                        continue
                    if document.get("issuer") != self.issuer:
                        problems.append(f"{url}: names issuer {document.get('issuer')!r}")
                        continue
                    self.metadata = document
                    break
                else:
                    self._failed_at = time.monotonic()
                    raise IssuerUnavailable(
                        f"no metadata for issuer {self.issuer}: " + "; ".join(problems)
                    )
        assert self.metadata is not None  # found above, or IssuerUnavailable was raised
        return self.metadata

    async def key(self, kid: str | None) -> dict[str, Any] | None:
        """The JWK for ``kid`` (None: the only key), or None when a good JWKS answer
        lacks it; IssuerUnavailable when the keys cannot be had to say either."""
        asked = time.monotonic()
        if self._keys is None or asked >= self._expires_at:
            await self._refresh(asked)
        found = _lookup(self._keys or {}, kid)
        if found is None and self._refreshing.locked():
            # A fetch is under way (perhaps caused by another unknown kid): its answer is
            # as new as one this request would cause.
            async with self._refreshing:
                pass
            found = _lookup(self._keys or {}, kid)
        if found is None and asked - self._refetched_at >= REFETCH_INTERVAL:
            self._refetched_at = asked
            await self._refresh(asked)
            found = _lookup(self._keys or {}, kid)
        if found is None and self._stale:
            raise IssuerUnavailable(
                f"issuer {self.issuer}: no key {kid!r} among the keys fetched before, and "
                "the key set cannot be fetched now to look for it"
            )
        return found

    async def _refresh(self, asked: float) -> None:
        """Fetch the key set, unless a fetch started since ``asked`` (its answer will do).
        With a good set from before, a failure keeps it (and is logged); without, it raises
        IssuerUnavailable."""
        async with self._refreshing:
            if self._attempted_at >= asked:
                if self._keys is None:
                    raise IssuerUnavailable(f"issuer {self.issuer}: no keys (fetch just failed)")
                return
            self._attempted_at = time.monotonic()
            try:
                keys, lifetime = await self._fetch()
            except IssuerUnavailable as exc:
                self._stale = True
                self._expires_at = time.monotonic() + RETRY_AFTER_FAILURE
                if self._keys is None:
                    raise
                # Keys already known stay valid while the server is away; say so once per try.
                print(f"mcp-codegen auth: {exc}; using the keys fetched before", file=sys.stderr)
                return
            self._keys = keys
            self._stale = False
            self._expires_at = time.monotonic() + lifetime

    async def _fetch(self) -> tuple[Keys, float]:
        metadata = await self.discover()
        uri = metadata.get("jwks_uri")
        if type(uri) is not str:
            raise IssuerUnavailable(f"issuer {self.issuer}: metadata has no jwks_uri")
        self._check_backoff()
        try:
            document, max_age = await fetch_json_with_max_age(uri, self.timeout)
        except FetchError as exc:
            self._failed_at = time.monotonic()
            raise IssuerUnavailable(f"issuer {self.issuer}: keys: {exc}") from None
        keys, usable, problems = _signing_keys(document, self._keys or {})
        if problems:
            print(f"mcp-codegen auth: issuer {self.issuer}: {uri}: {problems}", file=sys.stderr)
        if not usable:
            self._failed_at = time.monotonic()
            raise IssuerUnavailable(f"issuer {self.issuer}: {uri} holds no usable signing key")
        if max_age is None:
            return keys, self.max_age
        return keys, min(max(max_age, MIN_MAX_AGE), self.max_age)

    def _check_backoff(self) -> None:
        if time.monotonic() - self._failed_at < RETRY_AFTER_FAILURE:
            raise IssuerUnavailable(
                f"issuer {self.issuer}: unreachable a moment ago; trying again in "
                f"{RETRY_AFTER_FAILURE:g} s"
            )


def _signing_keys(document: dict[str, Any], before: Keys) -> tuple[Keys, int, str]:
    """The signing keys to use after this JWK set: its usable ones, and for a kid whose
    entry does not parse its key from ``before``; how many of its own were usable; and
    what was wrong with the others (empty when nothing)."""
    keys = document.get("keys")
    if type(keys) is not list or len(keys) > MAX_KEYS:
        return {}, 0, f"not a JWK set of at most {MAX_KEYS} keys"
    found: Keys = {}
    usable = 0
    problems: list[str] = []
    for jwk in keys:
        if type(jwk) is not dict:
            problems.append("an entry is not an object")
            continue
        if jwk.get("use", "sig") != "sig":
            continue
        kid = jwk.get("kid")
        name = kid if type(kid) is str else None
        reason = _unusable(jwk)
        if reason is None:
            found[name] = jwk
            usable += 1
            continue
        problems.append(f"key {name!r} skipped: {reason}")
        if name in before and name not in found:
            found[name] = before[name]  # the issuer still names it: keep the good copy
    return found, usable, "; ".join(problems)


def _unusable(jwk: dict[str, Any]) -> str | None:
    """Why the JWK cannot check a signature here, or None when it can."""
    if jwk.get("kty") not in USABLE_KEY_TYPES:
        return f"key type {jwk.get('kty')!r} is not one of {', '.join(USABLE_KEY_TYPES)}"
    import jwt  # PyJWT: the http extra (tokens.py imports it before asking for keys)

    try:
        jwt.PyJWK(jwk)
    except (jwt.PyJWTError, ValueError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"[:200]
    return None


def _lookup(keys: Keys, kid: str | None) -> dict[str, Any] | None:
    if kid is not None:
        return keys.get(kid)
    return next(iter(keys.values())) if len(keys) == 1 else None
