"""``[tool.mcp-codegen]`` in a project's pyproject.toml, read into a frozen Config."""

from __future__ import annotations

import difflib
import keyword
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import BuildError, Diagnostic, error
from mcp_schemagen.load.auth_config import KEY as AUTHORIZATION_KEY
from mcp_schemagen.load.auth_config import parse_authorization
from mcp_schemagen.load.containment import glob_problem, inside, outside_message
from mcp_schemagen.load.published import known_tool_fields
from mcp_schemagen.load.specs import revision_names
from mcp_schemagen.runtime.core.listing import CACHE_SCOPES, DEFAULT_CACHE_SCOPE, DEFAULT_TTL_MS
from mcp_schemagen.runtime.protocol import DEFAULT_NAMES, REVISIONS
from mcp_schemagen.runtime.resources.revisions import RESOURCE_FIELDS, TEMPLATE_FIELDS
from mcp_schemagen.runtime.subscriptions.notices import LIST_KINDS

DEFAULT_TOOL_GLOBS = ("tools/*.json", "tools/*.yaml", "tools/*.yml")
DEFAULT_PROMPT_GLOBS = ("prompts/*.json", "prompts/*.yaml", "prompts/*.yml")
DEFAULT_RESOURCE_GLOBS = ("resources/*.json", "resources/*.yaml", "resources/*.yml")
DEFAULT_PAGE_SIZE = 100
MAX_TTL_MS = 2**53 - 1  # the largest integer every JSON client reads exactly
_PACKAGE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KNOWN_KEYS = frozenset(
    {
        "package",
        "out",
        "tools",
        "prompts",
        "resources",
        "revisions",
        "server-name",
        "server-version",
        "page-size",
        "instructions",
        "ttl-ms",
        "cache-scope",
        "protocol-models",
        "accept-omitted",
        "accept-keywords",
        "list-changed",
        "resource-subscriptions",
        "breaking-fail",  # read by contract/settings.py, for `mcp-codegen breaking` only
        AUTHORIZATION_KEY,
    }
)


@dataclass(frozen=True)
class Config:
    root: Path
    package: str
    out_dir: Path
    tool_globs: tuple[str, ...]
    revisions: tuple[str, ...]
    server_name: str
    server_version: str
    page_size: int
    allow_outside: bool = False  # --allow-outside-project: paths may leave the project
    # pydantic models of every protocol revision, for the user's tests and clients; opt-in,
    # since the server never imports them and they would dominate a small first build.
    protocol_models: bool = False
    # Whether pyproject.toml lists `revisions` (else: the default ones), so messages
    # about a revision point at the key that chose it, or at the table to add it to.
    revisions_listed: bool = False
    # Tool fields the project accepts older revisions' clients do without: no warning.
    accept_omitted: tuple[str, ...] = ()
    # Unknown schema keywords the project uses on purpose: no error, no warning.
    accept_keywords: tuple[str, ...] = ()
    # What initialize and server/discover tell clients about using the server.
    instructions: str | None = None
    # 2026-07-28 caching hints of tools/list and server/discover (ttlMs, cacheScope).
    ttl_ms: int = DEFAULT_TTL_MS
    cache_scope: str = DEFAULT_CACHE_SCOPE
    # [tool.mcp-codegen.authorization] as MCP_AUTH_* values (auth_config.py); () when off.
    authorization: tuple[tuple[str, str], ...] = ()
    # Prompt file globs (load/prompts.py); matching no file means no prompts.
    prompt_globs: tuple[str, ...] = DEFAULT_PROMPT_GLOBS
    # Change notifications (runtime/subscriptions/): the kinds whose list_changed the
    # server declares and sends, and whether clients may subscribe to resource updates.
    list_changed: tuple[str, ...] = ()
    resource_subscriptions: bool = False
    # Resource file globs (load/resources.py); matching no file means no resources.
    resource_globs: tuple[str, ...] = DEFAULT_RESOURCE_GLOBS

    @property
    def package_dir(self) -> Path:
        return self.out_dir / self.package

    @property
    def newest_revision(self) -> str:
        return self.revisions[-1]

    @property
    def pyproject(self) -> Path:
        return self.root / "pyproject.toml"


def is_package_name(name: str) -> bool:
    return bool(_PACKAGE_NAME.match(name)) and not keyword.iskeyword(name)


def load_config(root: Path, *, allow_outside: bool = False) -> Config:
    pyproject = root / "pyproject.toml"
    where = str(pyproject)
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(
            [error(where, "", "no pyproject.toml here; run `mcp-codegen new NAME` to start one")]
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise BuildError([error(where, "", f"not valid TOML: {exc}")]) from None
    section: Any = document.get("tool", {}).get("mcp-codegen")
    if not isinstance(section, dict):
        raise BuildError(
            [
                error(
                    where,
                    "",
                    'no [tool.mcp-codegen] table; add one with at least `package = "NAME"`',
                )
            ]
        )
    problems: list[Diagnostic] = []

    def bad(key: str, message: str) -> None:
        problems.append(error(where, f"/tool/mcp-codegen/{key}", message))

    for key in sorted(set(section) - _KNOWN_KEYS):
        guess = difflib.get_close_matches(key, sorted(_KNOWN_KEYS), n=1)
        meant = f"did you mean {guess[0]!r}? " if guess else ""
        bad(key, f"unknown key; {meant}known keys: {', '.join(sorted(_KNOWN_KEYS))}")

    package = section.get("package")
    if not isinstance(package, str) or not is_package_name(package):
        bad("package", f"must be a Python package name (letters, digits, _), got {package!r}")
        package = "invalid"

    out = section.get("out", ".")
    if not isinstance(out, str):
        bad("out", "must be a folder path relative to pyproject.toml")
        out = "."

    globs = section.get("tools", list(DEFAULT_TOOL_GLOBS))
    if not (isinstance(globs, list) and globs and all(isinstance(g, str) for g in globs)):
        bad("tools", 'must be a non-empty list of glob patterns, like ["tools/*.json"]')
        globs = list(DEFAULT_TOOL_GLOBS)
    for pattern in globs:
        problem = glob_problem(pattern, allow_outside)
        if problem:
            bad("tools", problem)
    prompt_globs = section.get("prompts", list(DEFAULT_PROMPT_GLOBS))
    if not (isinstance(prompt_globs, list) and all(isinstance(g, str) for g in prompt_globs)):
        bad("prompts", 'must be a list of glob patterns, like ["prompts/*.json"]')
        prompt_globs = list(DEFAULT_PROMPT_GLOBS)
    for pattern in prompt_globs:
        problem = glob_problem(pattern, allow_outside)
        if problem:
            bad("prompts", problem)
    resource_globs = section.get("resources", list(DEFAULT_RESOURCE_GLOBS))
    if not (isinstance(resource_globs, list) and all(isinstance(g, str) for g in resource_globs)):
        bad("resources", 'must be a list of glob patterns, like ["resources/*.json"]')
        resource_globs = list(DEFAULT_RESOURCE_GLOBS)
    for pattern in resource_globs:
        problem = glob_problem(pattern, allow_outside)
        if problem:
            bad("resources", problem)
    if not allow_outside and not inside(root / out, root):
        bad("out", outside_message(f"out = {out!r}"))
    elif not allow_outside and not inside(root / out / str(package), root):
        bad("package", outside_message(f"the package folder {package!r} (a symbolic link)"))

    known = revision_names()
    revisions = section.get("revisions", list(DEFAULT_NAMES))
    if not (
        isinstance(revisions, list) and revisions and all(isinstance(r, str) for r in revisions)
    ):
        bad("revisions", f"must be a non-empty list of protocol revisions from {', '.join(known)}")
        revisions = list(DEFAULT_NAMES)
    for name in revisions:
        if name not in known:
            bad("revisions", f"unknown protocol revision {name!r}; known: {', '.join(known)}")
    selected = tuple(r for r in known if r in revisions)

    project = document.get("project", {})
    server_name = section.get("server-name", project.get("name", package))
    server_version = section.get("server-version", project.get("version", "0.1.0"))
    for key, value in (("server-name", server_name), ("server-version", server_version)):
        if not isinstance(value, str) or not value:
            bad(key, "must be a non-empty string")

    page_size = section.get("page-size", DEFAULT_PAGE_SIZE)
    if not isinstance(page_size, int) or isinstance(page_size, bool) or page_size < 1:
        bad("page-size", "must be a positive integer (tools per tools/list page)")
        page_size = DEFAULT_PAGE_SIZE

    instructions = section.get("instructions")
    if instructions is not None and not (isinstance(instructions, str) and instructions.strip()):
        bad(
            "instructions",
            "must be a non-empty string: how to use this server, sent to clients in the"
            " initialize (and 2026-07-28 server/discover) result",
        )
        instructions = None
    ttl_ms = section.get("ttl-ms", DEFAULT_TTL_MS)
    if not isinstance(ttl_ms, int) or isinstance(ttl_ms, bool) or not 0 <= ttl_ms <= MAX_TTL_MS:
        bad(
            "ttl-ms",
            f"must be an integer from 0 to {MAX_TTL_MS}: milliseconds a 2026-07-28 client may"
            f" reuse a tools/list or server/discover result (default {DEFAULT_TTL_MS})",
        )
        ttl_ms = DEFAULT_TTL_MS
    cache_scope = section.get("cache-scope", DEFAULT_CACHE_SCOPE)
    if cache_scope not in CACHE_SCOPES:
        bad(
            "cache-scope",
            f"must be one of {', '.join(map(repr, CACHE_SCOPES))}, got {cache_scope!r}"
            ' ("private": results hold user-specific data, caches must not share them)',
        )
        cache_scope = DEFAULT_CACHE_SCOPE

    protocol_models = section.get("protocol-models", False)
    if not isinstance(protocol_models, bool):
        bad("protocol-models", "must be true or false (generate PACKAGE.protocol, pydantic models)")
        protocol_models = False
    accepted = section.get("accept-omitted", [])
    # and prompts' argument titles, resources' fields and annotation fields
    fields = sorted(known_tool_fields() | {"arguments/title"} | resource_omittable_fields())
    if not (isinstance(accepted, list) and all(isinstance(f, str) for f in accepted)):
        bad(
            "accept-omitted",
            f'must be a list of tool fields, like ["title"]: {", ".join(fields)}',
        )
        accepted = []
    for field in accepted:
        if field not in fields:
            guess = difflib.get_close_matches(field, fields, n=1)
            hint = f"did you mean {guess[0]!r}?" if guess else f"tool fields: {', '.join(fields)}"
            bad("accept-omitted", f"{field!r} is not a tool field; {hint}")

    keywords = section.get("accept-keywords", [])
    if not (isinstance(keywords, list) and all(isinstance(k, str) and k for k in keywords)):
        bad(
            "accept-keywords",
            'must be a list of schema keywords you use on purpose, like ["requird"]',
        )
        keywords = []

    list_changed = section.get("list-changed", [])
    if not (isinstance(list_changed, list) and all(k in LIST_KINDS for k in list_changed)):
        bad(
            "list-changed",
            f"must be a list of the kinds whose lists may change while the server runs, from"
            f" {', '.join(map(repr, LIST_KINDS))} (handlers announce a change with"
            f" notify_list_changed), got {list_changed!r}",
        )
        list_changed = []
    subscriptions = section.get("resource-subscriptions", False)
    if not isinstance(subscriptions, bool):
        bad(
            "resource-subscriptions",
            "must be true or false (clients may subscribe to resource updates, which"
            f" handlers announce with notify_resource_updated), got {subscriptions!r}",
        )
        subscriptions = False

    authorization, auth_problems = parse_authorization(section.get(AUTHORIZATION_KEY), where)
    problems += auth_problems
    if problems:
        raise BuildError(problems)
    return Config(
        root=root,
        package=package,
        out_dir=(root / out).resolve(),
        tool_globs=tuple(globs),
        revisions=selected or DEFAULT_NAMES,
        server_name=str(server_name),
        server_version=str(server_version),
        page_size=page_size,
        allow_outside=allow_outside,
        protocol_models=protocol_models,
        revisions_listed="revisions" in section,
        accept_omitted=tuple(accepted),
        accept_keywords=tuple(keywords),
        instructions=instructions,
        ttl_ms=ttl_ms,
        cache_scope=cache_scope,
        authorization=tuple(authorization.items()),
        prompt_globs=tuple(prompt_globs),
        list_changed=tuple(k for k in LIST_KINDS if k in list_changed),
        resource_subscriptions=subscriptions,
        resource_globs=tuple(resource_globs),
    )


def resource_omittable_fields() -> frozenset[str]:
    """Fields of a resource or template some revision leaves out (for accept-omitted)."""
    fields = frozenset().union(*RESOURCE_FIELDS.values(), *TEMPLATE_FIELDS.values())
    annotations = frozenset().union(*(r.annotations for r in REVISIONS))
    return fields | {f"annotations/{a}" for a in annotations}
