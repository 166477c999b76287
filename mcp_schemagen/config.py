"""``[tool.mcp-codegen]`` in a project's pyproject.toml, read into a frozen Config."""

from __future__ import annotations

import difflib
import keyword
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.auth_config import KEY as AUTHORIZATION_KEY
from mcp_schemagen.auth_config import parse_authorization
from mcp_schemagen.containment import glob_problem, inside, outside_message
from mcp_schemagen.diagnostics import BuildError, Diagnostic, error
from mcp_schemagen.publish import known_tool_fields
from mcp_schemagen.runtime.protocol import DEFAULT_NAMES
from mcp_schemagen.specs import revision_names

DEFAULT_TOOL_GLOBS = ("tools/*.json", "tools/*.yaml", "tools/*.yml")
DEFAULT_PAGE_SIZE = 100
_PACKAGE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KNOWN_KEYS = frozenset(
    {
        "package",
        "out",
        "tools",
        "revisions",
        "server-name",
        "server-version",
        "page-size",
        "protocol-models",
        "accept-omitted",
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
    # [tool.mcp-codegen.authorization] as MCP_AUTH_* values (auth_config.py); () when off.
    authorization: tuple[tuple[str, str], ...] = ()

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
        bad(key, f"unknown key; known keys: {', '.join(sorted(_KNOWN_KEYS))}")

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

    protocol_models = section.get("protocol-models", False)
    if not isinstance(protocol_models, bool):
        bad("protocol-models", "must be true or false (generate PACKAGE.protocol, pydantic models)")
        protocol_models = False
    accepted = section.get("accept-omitted", [])
    fields = sorted(known_tool_fields())
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
        authorization=tuple(authorization.items()),
    )
