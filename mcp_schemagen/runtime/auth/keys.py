"""An authorization server's metadata and signing keys, discovered from its issuer URL.

Metadata: RFC 8414 (``/.well-known/oauth-authorization-server`` inserted before the
issuer's path), then OpenID Connect discovery (``/.well-known/openid-configuration``
appended, then inserted); the document must name the configured issuer exactly (RFC 8414
section 3.3). Keys: the ``jwks_uri`` it names, cached. A token signed with a ``kid`` the
cache lacks makes one refetch (the server may have rotated its keys), at most once per
``REFETCH_INTERVAL`` per issuer, so a stream of made-up ``kid``s cannot turn this server
into a load generator against its authorization server. Without any keys (the server
unreachable, or answering garbage) every token is refused with 503: fail closed.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any
from urllib.parse import urlsplit

from .fetch import FetchError, fetch_json

REFETCH_INTERVAL = 10.0  # seconds between refetches caused by unknown kids
MAX_AGE = 3600.0  # keys are refetched this often even when no kid is missing
RETRY_AFTER_FAILURE = 5.0  # a failed discovery is tried again after this long
MAX_KEYS = 100


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
    def __init__(self, issuer: str, timeout: float) -> None:
        self.issuer = issuer
        self.timeout = timeout
        self.metadata: dict[str, Any] | None = None
        self._keys: dict[str | None, dict[str, Any]] | None = None
        self._fetched_at = 0.0
        self._refetched_at = float("-inf")
        self._failed_at = float("-inf")
        self._lock = asyncio.Lock()

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
        """The JWK for ``kid`` (None: the only key), or None when the issuer has none."""
        now = time.monotonic()
        if self._keys is None or now - self._fetched_at > MAX_AGE:
            await self._refresh(keep_on_failure=self._keys is not None)
        elif _lookup(self._keys, kid) is None and now - self._refetched_at >= REFETCH_INTERVAL:
            self._refetched_at = now
            await self._refresh(keep_on_failure=True)
        return _lookup(self._keys or {}, kid)

    async def _refresh(self, *, keep_on_failure: bool) -> None:
        try:
            metadata = await self.discover()
            uri = metadata.get("jwks_uri")
            if type(uri) is not str:
                raise IssuerUnavailable(f"issuer {self.issuer}: metadata has no jwks_uri")
            self._check_backoff()
            try:
                document = await fetch_json(uri, self.timeout)
            except FetchError as exc:
                self._failed_at = time.monotonic()
                raise IssuerUnavailable(f"issuer {self.issuer}: keys: {exc}") from None
            keys = _signing_keys(document)
            if keys is None:
                self._failed_at = time.monotonic()
                raise IssuerUnavailable(f"issuer {self.issuer}: {uri} is not a JWK set")
        except IssuerUnavailable as exc:
            if not keep_on_failure:
                raise
            # Keys already known stay valid while the server is away; say so once per try.
            print(f"mcp-codegen auth: {exc}; using the keys fetched before", file=sys.stderr)
            self._fetched_at = time.monotonic()
            return
        self._keys = keys
        self._fetched_at = time.monotonic()

    def _check_backoff(self) -> None:
        if time.monotonic() - self._failed_at < RETRY_AFTER_FAILURE:
            raise IssuerUnavailable(
                f"issuer {self.issuer}: unreachable a moment ago; trying again in "
                f"{RETRY_AFTER_FAILURE:g} s"
            )


def _signing_keys(document: dict[str, Any]) -> dict[str | None, dict[str, Any]] | None:
    keys = document.get("keys")
    if type(keys) is not list or len(keys) > MAX_KEYS:
        return None
    found: dict[str | None, dict[str, Any]] = {}
    for jwk in keys:
        if type(jwk) is not dict or type(jwk.get("kty")) is not str:
            return None
        if jwk.get("use", "sig") != "sig":
            continue
        kid = jwk.get("kid")
        found[kid if type(kid) is str else None] = jwk
    return found


def _lookup(keys: dict[str | None, dict[str, Any]], kid: str | None) -> dict[str, Any] | None:
    if kid is not None:
        return keys.get(kid)
    return next(iter(keys.values())) if len(keys) == 1 else None
