"""``x-mcp-codegen-http``: the HTTP operation a tool calls, recorded in its tool file by
``mcp-codegen import openapi`` so that the build generates the call (render/upstream.py).

MCP has no field for it, so it is a generator key: checked here, never published (each
revision's form keeps only the fields it defines). Its shape, every key but ``fixed``,
``body`` and ``security`` required::

    x-mcp-codegen-http:
      api: petstore                   # env var prefix: PETSTORE_BASE_URL, credentials
      method: GET
      path: /pets/{id}
      server: http://petstore.example/api   # base URL unless PETSTORE_BASE_URL is set
      parameters:                     # each input property -> where it is sent
        id: {in: path, name: id}
        limit: {in: query, name: limit}
        name: {in: body, name: name}  # one property of a flattened body
        body: {in: body}              # the whole body
      body: application/json          # or application/x-www-form-urlencoded
      fixed: [{in: query, name: format, value: json}]   # sent always, not an input
      security: [[{type: apiKey, in: header, name: X-Key, env: [PETSTORE_KEY]}]]
      from: petstore.yaml#/paths/~1pets~1{id}/get
"""

from __future__ import annotations

import re
from typing import Any

HTTP_KEY = "x-mcp-codegen-http"

METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"})
LOCATIONS = frozenset({"path", "query", "header", "cookie", "body"})
BODY_TYPES = frozenset({"application/json", "application/x-www-form-urlencoded"})
# What each kind of credential reads from the environment, in order.
SECURITY_ENV = {"apiKey": 1, "bearer": 1, "basic": 2, "oauth2": 2}
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_API_NAME = re.compile(r"[a-z][a-z0-9_]*")


def http_problems(value: Any) -> list[tuple[tuple[str, ...], str]]:
    """What is wrong with an ``x-mcp-codegen-http`` value: (pointer parts below the key,
    message) each; empty when the build can generate its call."""
    if not isinstance(value, dict):
        return [((), "must be an object (written by `mcp-codegen import openapi`)")]
    problems: list[tuple[tuple[str, ...], str]] = []
    for key in ("api", "method", "path", "server", "parameters"):
        if key not in value:
            problems.append(((), f"needs {key!r}"))
    api = value.get("api")
    if "api" in value and not (isinstance(api, str) and _API_NAME.fullmatch(api)):
        problems.append((("api",), "must be lower-case letters, digits and _ (it names env vars)"))
    if "method" in value and value["method"] not in METHODS:
        problems.append((("method",), f"must be one of {', '.join(sorted(METHODS))}"))
    path = value.get("path")
    if "path" in value and not (isinstance(path, str) and path.startswith("/")):
        problems.append((("path",), "must be a string starting with /"))
    if "server" in value and not isinstance(value["server"], str):
        problems.append((("server",), "must be a URL string (may be empty: set the env var)"))
    problems += _parameter_problems(value.get("parameters", {}), path)
    if "body" in value and value["body"] not in BODY_TYPES:
        problems.append((("body",), f"must be one of {', '.join(sorted(BODY_TYPES))}"))
    fixed = value.get("fixed", [])
    if not isinstance(fixed, list):
        problems.append((("fixed",), "must be a list of {in, name, value}"))
    else:
        for index, item in enumerate(fixed):
            if not (
                isinstance(item, dict)
                and item.get("in") in LOCATIONS - {"body"}
                and isinstance(item.get("name"), str)
                and "value" in item
            ):
                problems.append((("fixed", str(index)), "must be {in, name, value}"))
    problems += _security_problems(value.get("security", []))
    return problems


def _parameter_problems(parameters: Any, path: Any) -> list[tuple[tuple[str, ...], str]]:
    if not isinstance(parameters, dict):
        return [(("parameters",), "must map each input property to {in, name}")]
    problems: list[tuple[tuple[str, ...], str]] = []
    for prop, where in parameters.items():
        at = ("parameters", str(prop))
        if not isinstance(where, dict) or where.get("in") not in LOCATIONS:
            problems.append((at, f"needs 'in', one of {', '.join(sorted(LOCATIONS))}"))
            continue
        name = where.get("name")
        if where["in"] != "body" and not isinstance(name, str):
            problems.append((at, "needs the 'name' the API knows it by"))
        if where["in"] == "path" and isinstance(path, str) and f"{{{name}}}" not in path:
            problems.append((at, f"path parameter {name!r} is not in the path {path!r}"))
    return problems


def _security_problems(security: Any) -> list[tuple[tuple[str, ...], str]]:
    if not isinstance(security, list) or not all(isinstance(s, list) for s in security):
        return [(("security",), "must be a list of alternatives, each a list of credentials")]
    problems: list[tuple[tuple[str, ...], str]] = []
    for i, alternative in enumerate(security):
        for j, credential in enumerate(alternative):
            at = ("security", str(i), str(j))
            kind = credential.get("type") if isinstance(credential, dict) else None
            if kind not in SECURITY_ENV:
                problems.append((at, f"'type' must be one of {', '.join(SECURITY_ENV)}"))
                continue
            env = credential.get("env")
            if not (
                isinstance(env, list)
                and len(env) == SECURITY_ENV[kind]
                and all(isinstance(e, str) and _ENV_NAME.fullmatch(e) for e in env)
            ):
                problems.append((at, f"'env' must list {SECURITY_ENV[kind]} env var name(s)"))
            if kind == "apiKey" and (
                credential.get("in") not in {"header", "query", "cookie"}
                or not isinstance(credential.get("name"), str)
            ):
                problems.append((at, "an apiKey needs 'in' (header, query, cookie) and 'name'"))
            if kind == "oauth2" and not isinstance(credential.get("tokenUrl"), str):
                problems.append((at, "oauth2 (client credentials) needs 'tokenUrl'"))
    return problems
