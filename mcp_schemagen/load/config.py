"""``[tool.mcp-codegen]`` in a project's pyproject.toml, read into a frozen Config by the
description of its keys (config_keys.py)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import BuildError, error
from mcp_schemagen.load.config_keys import (
    BY_NAME,
    CONFIG_KEYS,
    DEFAULT_PROMPT_GLOBS,
    DEFAULT_RESOURCE_GLOBS,
    DEFAULT_TOOL_GLOBS,
    read_section,
)
from mcp_schemagen.load.config_reading import Reading
from mcp_schemagen.runtime.core.listing import DEFAULT_CACHE_SCOPE, DEFAULT_TTL_MS

# Re-exported: where the default globs were always imported from.
__all__ = [
    "DEFAULT_PROMPT_GLOBS",
    "DEFAULT_RESOURCE_GLOBS",
    "DEFAULT_TOOL_GLOBS",
    "Config",
    "load_config",
]


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

    def globs(self, key: str) -> tuple[str, ...]:
        """The file globs of the kind whose [tool.mcp-codegen] key is ``key``."""
        field = BY_NAME[key].field
        assert field is not None and field.endswith("_globs"), key
        globs: tuple[str, ...] = getattr(self, field)
        return globs

    @property
    def package_dir(self) -> Path:
        return self.out_dir / self.package

    @property
    def newest_revision(self) -> str:
        return self.revisions[-1]

    @property
    def pyproject(self) -> Path:
        return self.root / "pyproject.toml"


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
    project = document.get("project", {})
    reading = Reading(root, where, allow_outside, project if isinstance(project, dict) else {})
    problems = read_section(section, reading)
    if problems:
        raise BuildError(problems)
    fields = {key.field: reading.values[key.name] for key in CONFIG_KEYS if key.field is not None}
    return Config(
        root=root, allow_outside=allow_outside, revisions_listed="revisions" in section, **fields
    )
