"""Checking an access token: a JWT (RFC 9068) against the issuer's keys, or an opaque
token by introspection (RFC 7662). Either way the answer is a ``Principal`` or an
exception whose message says why, without the token.

PyJWT (in the package's ``http`` extra) is imported here, inside the functions: the runtime imports
only the standard library, orjson and jsonschema_rs when a module loads.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from .fetch import FetchError, fetch_json
from .keys import IssuerKeys, IssuerUnavailable
from .principal import Principal
from .settings import AuthSettings

MAX_TOKEN_BYTES = 16 * 1024  # larger tokens are refused before anything is decoded
# RFC 9068 section 4: an access token says typ at+jwt (media types compare without case,
# the "application/" prefix may go). Plain JWT (or no typ) only from issuers configured
# to issue them (--auth-plain-jwt-issuer): an ID token, say, has typ JWT too.
ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")
PLAIN_JWT_TYPES = (None, "jwt", "application/jwt")


class TokenRejected(Exception):
    """The token is not valid here (answer 401); the message is for the log."""


class Verifier:
    async def verify(self, token: str) -> Principal:
        raise NotImplementedError


class JwtVerifier(Verifier):
    def __init__(self, settings: AuthSettings) -> None:
        self.settings = settings
        self.issuers = {
            issuer: IssuerKeys(
                issuer, settings.fetch_timeout_seconds, settings.jwks_max_age_seconds
            )
            for issuer in settings.issuers
        }

    async def verify(self, token: str) -> Principal:
        try:
            import jwt
        except ImportError:  # pragma: no cover - the extra is missing
            raise IssuerUnavailable(
                "JWT access tokens need PyJWT[crypto], in the package's http extra"
            ) from None
        if len(token) > MAX_TOKEN_BYTES:
            raise TokenRejected(f"token longer than {MAX_TOKEN_BYTES} bytes")
        try:
            header = jwt.get_unverified_header(token)
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError as exc:
            raise TokenRejected(f"not a JWT ({type(exc).__name__})") from None
        algorithm = header.get("alg")
        if algorithm not in self.settings.algorithms:
            raise TokenRejected(f"algorithm {algorithm!r} is not accepted")
        issuer = unverified.get("iss")
        keys = self.issuers.get(issuer) if type(issuer) is str else None
        if keys is None:
            raise TokenRejected(f"issuer {_quote(unverified.get('iss'))} is not trusted")
        self._check_type(header.get("typ"), keys.issuer)
        kid = header.get("kid")
        jwk = await keys.key(kid if type(kid) is str else None)
        if jwk is None:
            raise TokenRejected(f"no key {_quote(kid)} at issuer {keys.issuer}")
        if jwk.get("alg", algorithm) != algorithm:
            raise TokenRejected(f"key {_quote(kid)} is not for {algorithm}")
        try:
            key = jwt.PyJWK(jwk, algorithm=algorithm).key
            claims = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=self.settings.resource,
                issuer=keys.issuer,
                leeway=self.settings.leeway_seconds,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError as exc:
            raise TokenRejected(f"{type(exc).__name__}: {exc}") from None
        return principal_of(claims, keys.issuer)

    def _check_type(self, typ: Any, issuer: str) -> None:
        named = typ.lower() if type(typ) is str else typ
        if type(named) is str and named in ACCESS_TOKEN_TYPES:
            return
        if issuer in self.settings.plain_jwt_issuers and named in PLAIN_JWT_TYPES:
            return
        if named in PLAIN_JWT_TYPES:
            raise TokenRejected(
                f"token type {_quote(typ)} is not at+jwt (RFC 9068 section 4); if issuer "
                f"{issuer} issues plain JWT access tokens, name it with --auth-plain-jwt-issuer"
            )
        raise TokenRejected(f"token type {_quote(typ)} is not an access token")


class IntrospectionVerifier(Verifier):
    """RFC 7662: the authorization server says whether an opaque token is active."""

    def __init__(self, settings: AuthSettings) -> None:
        assert settings.introspection_url is not None
        self.settings = settings
        self.url = settings.introspection_url

    async def verify(self, token: str) -> Principal:
        if len(token) > MAX_TOKEN_BYTES:
            raise TokenRejected(f"token longer than {MAX_TOKEN_BYTES} bytes")
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if self.settings.client_id is not None:
            pair = f"{self.settings.client_id}:{self.settings.client_secret or ''}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        data = urlencode({"token": token, "token_type_hint": "access_token"}).encode()
        try:
            answer = await fetch_json(
                self.url, self.settings.fetch_timeout_seconds, data=data, headers=headers
            )
        except FetchError as exc:
            raise IssuerUnavailable(f"introspection: {exc}") from None
        if answer.get("active") is not True:
            raise TokenRejected("introspection: token not active")
        now = time.time()
        leeway = self.settings.leeway_seconds
        exp = answer.get("exp")
        if isinstance(exp, int | float) and exp + leeway < now:
            raise TokenRejected("introspection: token expired")
        nbf = answer.get("nbf")
        if isinstance(nbf, int | float) and nbf - leeway > now:
            raise TokenRejected("introspection: token not yet valid")
        audience = answer.get("aud")
        audiences = [audience] if type(audience) is str else audience
        if type(audiences) is not list or self.settings.resource not in audiences:
            raise TokenRejected(f"introspection: audience {_quote(audience)} is not this server")
        issuer = answer.get("iss", self.settings.issuers[0])
        if issuer not in self.settings.issuers:
            raise TokenRejected(f"introspection: issuer {_quote(issuer)} is not trusted")
        if type(answer.get("sub")) is not str:
            raise TokenRejected("introspection: no subject")
        return principal_of(answer, issuer)


def verifier_for(settings: AuthSettings) -> Verifier:
    if settings.introspection_url is not None:
        return IntrospectionVerifier(settings)
    return JwtVerifier(settings)


def principal_of(claims: Mapping[str, Any], issuer: str) -> Principal:
    scope = claims.get("scope")
    if type(scope) is str:
        scopes = frozenset(scope.split())
    else:
        listed = claims.get("scp")
        scopes = (
            frozenset(s for s in listed if type(s) is str) if type(listed) is list else frozenset()
        )
    client = claims.get("client_id", claims.get("azp"))
    subject = claims.get("sub")
    if type(subject) is not str or not subject:
        raise TokenRejected("token has no subject")
    return Principal(
        subject=subject,
        client_id=client if type(client) is str else None,
        scopes=scopes,
        issuer=issuer,
        claims=dict(claims),
    )


def _quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
