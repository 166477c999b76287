"""Where the running mcp-codegen was installed from, so a new project can install the same.

pip records how it installed a distribution from anything but an index in the
distribution's ``direct_url.json`` (PEP 610): a local folder (a checkout, perhaps
editable), an archive (a wheel or sdist, local or remote) or a VCS URL with its commit.
No such file means an index. The answer is one PEP 508 requirement that pip, and
pre-commit's ``additional_dependencies``, install the same generator from.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from mcp_schemagen import DISTRIBUTION, __version__


@dataclass(frozen=True)
class InstallSource:
    requirement: str  # PEP 508, e.g. "mcp-schemagen==0.1.0" or "mcp-schemagen @ file:///..."
    origin: str  # for people: "the package index", "the wheel /x/y.whl", ...
    repository: str | None  # a VCS URL to name in the remote pre-commit form, if known


def index_source() -> InstallSource:
    return InstallSource(f"{DISTRIBUTION}=={__version__}", "the package index", None)


def current_source() -> InstallSource:
    """The source of the installed distribution, or the index when it is not installed
    (run from a source tree on ``sys.path``) or is another version than this code."""
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return index_source()
    if distribution.version != __version__:
        return index_source()
    return source_of(distribution.read_text("direct_url.json"))


def source_of(direct_url: str | None) -> InstallSource:
    """The install source a ``direct_url.json`` text (or its absence) describes."""
    if not direct_url:
        return index_source()
    try:
        record: Any = json.loads(direct_url)
        url = _without_credentials(str(record["url"]))
    except (ValueError, KeyError, TypeError):
        return index_source()  # a record we cannot read: the version pin still holds
    fragment = ""
    if isinstance(record.get("subdirectory"), str):
        fragment = f"#subdirectory={record['subdirectory']}"
    vcs = record.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        commit = vcs.get("commit_id")
        pinned = f"{url}@{commit}" if isinstance(commit, str) else url
        return InstallSource(
            f"{DISTRIBUTION} @ {vcs['vcs']}+{pinned}{fragment}", f"{vcs['vcs']} {pinned}", url
        )
    where = _local_path(url) or url
    kind = "the checkout" if "dir_info" in record else "the archive"
    if where.endswith(".whl"):
        kind = "the wheel"
    return InstallSource(f"{DISTRIBUTION} @ {url}{fragment}", f"{kind} {where}", None)


def _local_path(url: str) -> str | None:
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme != "file":
        return None
    return urllib.parse.unquote(parsed.path)


def _without_credentials(url: str) -> str:
    # A private index or repository URL may carry a token; it must never be written into
    # a project's files. ("git@" is a user name, not a secret, and ssh needs it.)
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    if userinfo == "git":
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=host))
