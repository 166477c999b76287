"""A small OAuth 2.1 authorization server for the authorization tests, on 127.0.0.1.

Real parts: RSA keys (cryptography), access tokens signed with PyJWT as RFC 9068 JWTs, a
JWKS served over HTTP, RFC 8414 metadata, dynamic client registration (RFC 7591) and the
authorization-code flow with PKCE (S256) that the official SDK client runs; every
authorization is approved at once, for the ``subject`` the test chose, with the
requested scopes the test allows (``grantable``). ``mint`` signs any token a test
wants, hostile ones included. ``jwks_mode`` makes the key endpoint misbehave (hang, not
JSON, an unparseable key under every published kid, no keys at all); ``retired`` kids are
left out of the JWKS (a key rotated out); ``jwks_cache_control`` is sent with it.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(key: rsa.RSAPrivateKey, kid: str) -> dict[str, Any]:
    jwk: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    return {**jwk, "kid": kid, "use": "sig", "alg": "RS256"}


class AuthorizationServer:
    def __init__(self, resource: str) -> None:
        self.resource = resource
        self.key = new_key()
        self.kid = "key-1"
        self.extra_keys: dict[str, rsa.RSAPrivateKey] = {}
        self.subject = "alice"
        self.grantable: set[str] | None = None  # None: every scope asked for
        self.jwks_mode = "ok"  # ok | hang | garbage | junk-keys | no-keys
        self.retired: set[str] = set()  # kids no longer published
        self.junk_kids: set[str] = set()  # kids published with an unparseable key
        self.jwks_cache_control: str | None = None
        self.jwks_delay = 0.0  # seconds the key endpoint waits before answering
        self.signing_typ: str | None = "at+jwt"  # the JWT header's typ (None: left out)
        self.jwks_fetches = 0
        self.issued: list[str] = []  # every access token issued, for the log check
        self.scopes_asked: list[str] = []
        self._clients: dict[str, dict[str, Any]] = {}
        self._codes: dict[str, dict[str, Any]] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.issuer = f"http://127.0.0.1:{self._server.server_address[1]}"

    # ------------------------------------------------------------------ tokens

    def mint(
        self,
        *,
        subject: str | None = None,
        scope: str = "",
        audience: Any = None,
        issuer: str | None = None,
        lifetime: float = 300.0,
        not_before: float | None = None,
        key: rsa.RSAPrivateKey | None = None,
        kid: str | None = None,
        claims: dict[str, Any] | None = None,
    ) -> str:
        now = int(time.time())
        body = {
            "iss": issuer or self.issuer,
            "sub": subject or self.subject,
            "aud": self.resource if audience is None else audience,
            "client_id": "test-client",
            "scope": scope,
            "iat": now,
            "nbf": int(not_before) if not_before is not None else now,
            "exp": int(now + lifetime),
            "jti": secrets.token_hex(8),
            **(claims or {}),
        }
        # typ None: PyJWT leaves the header out (it would say JWT otherwise).
        headers = {"kid": kid or self.kid, "typ": self.signing_typ}
        token = jwt.encode(body, key or self.key, algorithm="RS256", headers=headers)
        self.issued.append(token)
        return token

    def jwks(self) -> dict[str, Any]:
        keys = [public_jwk(self.key, self.kid)]
        keys += [public_jwk(k, kid) for kid, k in self.extra_keys.items()]
        keys = [jwk for jwk in keys if jwk["kid"] not in self.retired]
        junk = {jwk["kid"] for jwk in keys} if self.jwks_mode == "junk-keys" else self.junk_kids
        # A junk key's modulus is not base64url at all (PyJWT: "n must be >= 3").
        keys = [{**jwk, "n": "!!!"} if jwk["kid"] in junk else jwk for jwk in keys]
        if self.jwks_mode == "no-keys":
            keys = []
        return {"keys": keys}

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": self.issuer + "/authorize",
            "token_endpoint": self.issuer + "/token",
            "registration_endpoint": self.issuer + "/register",
            "jwks_uri": self.issuer + "/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }

    # ------------------------------------------------------------------ flow

    def register(self, request: dict[str, Any]) -> dict[str, Any]:
        client_id = "client-" + secrets.token_hex(6)
        record = {
            **request,
            "client_id": client_id,
            "client_id_issued_at": int(time.time()),
            "token_endpoint_auth_method": "none",
        }
        self._clients[client_id] = record
        return record

    def authorize(self, query: dict[str, str]) -> str:
        """The redirect location for an approved request (or raises ValueError)."""
        client = self._clients.get(query.get("client_id", ""))
        if client is None or query.get("redirect_uri") not in client.get("redirect_uris", []):
            raise ValueError("unknown client or redirect_uri")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            raise ValueError("PKCE S256 required")
        asked = query.get("scope", "").split()
        self.scopes_asked.append(" ".join(asked))
        granted = [s for s in asked if self.grantable is None or s in self.grantable]
        code = secrets.token_urlsafe(16)
        self._codes[code] = {
            "client_id": query["client_id"],
            "redirect_uri": query["redirect_uri"],
            "challenge": query["code_challenge"],
            "scope": " ".join(granted),
            "resource": query.get("resource"),
        }
        answer = {"code": code, "state": query.get("state", ""), "iss": self.issuer}
        return f"{query['redirect_uri']}?{urlencode(answer)}"

    def token(self, form: dict[str, str]) -> dict[str, Any]:
        grant = self._codes.pop(form.get("code", ""), None)
        if grant is None or grant["client_id"] != form.get("client_id"):
            raise ValueError("invalid_grant")
        verifier = form.get("code_verifier", "").encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")
        if digest.decode() != grant["challenge"] or grant["redirect_uri"] != form.get(
            "redirect_uri"
        ):
            raise ValueError("invalid_grant")
        # RFC 8707: the audience is the resource the client named.
        token = self.mint(scope=grant["scope"], audience=form.get("resource") or grant["resource"])
        return {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": 300,
            "scope": grant["scope"],
        }

    def introspect(self, form: dict[str, str], authorization: str | None) -> dict[str, Any]:
        """RFC 7662, for the resource server's client ``rs``/``rs-secret`` only."""
        expected = "Basic " + base64.b64encode(b"rs:rs-secret").decode()
        if authorization != expected:
            raise PermissionError("unknown introspection client")
        try:
            claims: dict[str, Any] = jwt.decode(
                form.get("token", ""),
                self.key.public_key(),
                algorithms=["RS256"],
                options={"verify_aud": False},
            )
        except jwt.PyJWTError:
            return {"active": False}
        return {"active": True, **claims}

    # ------------------------------------------------------------------ serving

    def close(self) -> None:
        self._server.server_close()

    @contextlib.contextmanager
    def running(self) -> Iterator[AuthorizationServer]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()


def _handler(server: AuthorizationServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _json(self, status: int, document: Any, cache_control: str | None = None) -> None:
            body = document if isinstance(document, bytes) else json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if cache_control is not None:
                self.send_header("Cache-Control", cache_control)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path in (
                "/.well-known/oauth-authorization-server",
                "/.well-known/openid-configuration",
            ):
                self._json(200, server.metadata())
            elif parts.path == "/jwks":
                server.jwks_fetches += 1
                time.sleep(server.jwks_delay)
                if server.jwks_mode == "hang":
                    time.sleep(30)
                    self._json(200, server.jwks())
                elif server.jwks_mode == "garbage":
                    self._json(200, b"\x00not json{{")
                else:
                    self._json(200, server.jwks(), server.jwks_cache_control)
            elif parts.path == "/authorize":
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                try:
                    location = server.authorize(query)
                except ValueError as exc:
                    self._json(400, {"error": "invalid_request", "error_description": str(exc)})
                    return
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._json(404, {"error": "not_found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            path = urlsplit(self.path).path
            try:
                if path == "/register":
                    self._json(201, server.register(json.loads(raw)))
                elif path == "/token":
                    form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                    self._json(200, server.token(form))
                elif path == "/introspect":
                    form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                    answer = server.introspect(form, self.headers.get("Authorization"))
                    self._json(200, answer)
                else:
                    self._json(404, {"error": "not_found"})
            except ValueError as exc:
                self._json(400, {"error": str(exc)})
            except PermissionError:
                self._json(401, {"error": "invalid_client"})

    return Handler
