"""What a resource reader returns: text, bytes (sent base64 as a blob), or a
``ResourceResult`` with several contents and, for 2026-07-28 clients, its own caching
hints. A text or bytes return is one contents item with the resource's URI (the URI read,
for a template) and its ``mimeType``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from ..content import BlobResourceContents, TextResourceContents

ResourceContents: TypeAlias = TextResourceContents | BlobResourceContents


@dataclass(frozen=True, slots=True)
class ResourceResult:
    """The contents of one read (text, bytes, or contents dicts with their own URI and
    mimeType), and the 2026-07-28 caching hints of this answer: ``ttl_ms`` (None: the
    default for a reader's result, 0) and ``cache_scope`` (None: "private")."""

    contents: Sequence[str | bytes | ResourceContents] = field(default_factory=tuple)
    ttl_ms: int | None = None
    cache_scope: Literal["public", "private"] | None = None


# Everything a resource reader may return.
ResourceReturn: TypeAlias = str | bytes | ResourceResult
