"""What each protocol revision defines for resources (every revision has them, 2024-10-07
included): the fields of a Resource and a ResourceTemplate, each definition as a revision
publishes it, and the error for a URI the server does not have. The field sets are checked
against each revision's schema.json by the tests; the rest of the package holds the
other facts of each revision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..jsonrpc import RpcError
from .codes import INVALID_PARAMS
from .revision import Omission, Revision

RESOURCE_METHODS = frozenset({"resources/list", "resources/templates/list", "resources/read"})
# A URI the server does not have: -32002 up to 2025-11-25 (the resources chapter's
# "Resource not found"), -32602 with the URI in data from 2026-07-28 (SEP-2164).
RESOURCE_NOT_FOUND = -32002

_2024_10 = frozenset({"uri", "name", "description", "mimeType"})
_2024_11 = _2024_10 | {"annotations", "size"}
_2025_06 = _2024_11 | {"title", "_meta"}
_2025_11 = _2025_06 | {"icons"}
RESOURCE_FIELDS: Mapping[str, frozenset[str]] = {
    "2024-10-07": _2024_10,
    "2024-11-05": _2024_11,
    "2025-03-26": _2024_11,
    "2025-06-18": _2025_06,
    "2025-11-25": _2025_11,
    "2026-07-28": _2025_11,
}
TEMPLATE_FIELDS: Mapping[str, frozenset[str]] = {
    name: (fields - {"uri", "size"}) | {"uriTemplate"} for name, fields in RESOURCE_FIELDS.items()
}


def is_template(definition: Mapping[str, Any]) -> bool:
    return "uriTemplate" in definition


def publish_resource(
    definition: Mapping[str, Any], revision: Revision
) -> tuple[dict[str, Any], list[Omission]]:
    """A resource or template as ``revision``'s clients receive it (key order kept), and
    the fields they do not receive. ``x-`` keys (the content file, variable schemas) are
    never published and never reported."""
    fields = (TEMPLATE_FIELDS if is_template(definition) else RESOURCE_FIELDS)[revision.name]
    published: dict[str, Any] = {}
    omitted: list[Omission] = []
    for key, value in definition.items():
        if key.startswith("x-"):
            continue
        if key not in fields:
            omitted.append(Omission(key, "undefined"))
        elif key == "annotations" and isinstance(value, dict):
            kept = {k: v for k, v in value.items() if k in revision.annotations}
            omitted += [Omission(f"annotations/{k}", "undefined") for k in value if k not in kept]
            published[key] = kept
        else:
            published[key] = value
    return published, omitted


def not_found(revision: Revision, uri: str, shown: str) -> RpcError:
    """The error for resources/read of a URI the server has no resource for."""
    if revision.stateless:
        return RpcError(INVALID_PARAMS, f"Resource not found: {shown}", {"uri": uri})
    return RpcError(RESOURCE_NOT_FOUND, f"Resource not found: {shown}", {"uri": uri})
