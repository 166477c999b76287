"""skills/list and skills/get (the Skills extension, SEP-2640, io.modelcontextprotocol/skills).

Each skill's entry is written by the build (``SkillRow``: the ``uri`` of its SKILL.md, its
front matter verbatim, and every file with its ``sha256:`` digest and size) and served as
it is; the files themselves are static resources, read with resources/read. Both results
carry the caching hints of the list results (``ttlMs``, ``cacheScope``): the entries are
as fixed as the build. A URI that names no skill of the server is -32602, as the SEP says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from .. import jsonrpc
from ..core.listing import ListCaching, Lister
from ..jsonrpc import Reply, RpcError
from ..protocol import INVALID_PARAMS
from ..session.request import RequestContext
from ..shorten import shorten


class SkillResourceRow(TypedDict):
    uri: str
    digest: str  # "sha256:" and 64 lowercase hexadecimal digits of the file's raw bytes
    size: int  # bytes


class SkillRow(TypedDict):
    """One skill's entry, exactly as skills/list and skills/get publish it."""

    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillResourceRow]


class Skills:
    """Answers skills/list (paged like the other lists) and skills/get."""

    __slots__ = ("_by_uri", "_caching", "_stamp", "lister")

    def __init__(
        self,
        skills: Sequence[SkillRow],
        stamp: Mapping[str, Any],
        caching: ListCaching,
        page_size: int | None,
    ) -> None:
        self._by_uri: dict[str, SkillRow] = {}
        for skill in skills:
            if skill["uri"] in self._by_uri:
                raise ValueError(f"two skills are {skill['uri']!r}")
            self._by_uri[skill["uri"]] = skill
        entries = list(skills)
        self._stamp = stamp
        self._caching = caching
        self.lister = Lister(
            "skills", lambda _: entries, page_size=page_size, caching=caching, stamp=stamp
        )

    def list(self, request: RequestContext) -> Reply:
        page = self.lister.page(request.revision, request.params.get("cursor"))
        return jsonrpc.cached_result(request.id, page)

    def get(self, request: RequestContext) -> Reply:
        uri = request.params.get("uri")
        if type(uri) is not str:
            raise RpcError(
                INVALID_PARAMS, "skills/get needs the uri of a skill's SKILL.md, a string"
            )
        skill = self._by_uri.get(uri)
        if skill is None:
            raise RpcError(
                INVALID_PARAMS,
                f"No skill at {shorten(uri)}: skills/get takes the uri of a SKILL.md that"
                " skills/list names",
                {"uri": uri},
            )
        body: dict[str, Any] = {
            "skill": skill,
            "ttlMs": self._caching.ttl_ms,
            "cacheScope": self._caching.cache_scope,
        }
        return jsonrpc.result(request.id, request.revision.stamp(body, self._stamp))
