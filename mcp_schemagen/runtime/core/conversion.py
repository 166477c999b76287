"""From what a handler returns to the content blocks a revision's clients can read.

Blocks a revision lacks are converted to a faithful form it has: audio (before
2025-03-26) becomes an embedded blob resource with the same bytes and MIME type; a
resource_link (before 2025-06-18) becomes a text block holding a Markdown link with its
title, MIME type and description. Fields a revision does not define are left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import orjson

from .. import exact_json
from ..protocol import BY_NAME, Revision
from ..result import UNSET

_REQUIRED: Mapping[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource": ("resource",),
    "resource_link": ("uri", "name"),
}


# Every key a content block of each type may have in some revision.
_BLOCK_KEYS: Mapping[str, frozenset[str]] = {
    kind: frozenset().union(*(r.content.get(kind, frozenset()) for r in BY_NAME.values()))
    for kind in _REQUIRED
}


class OutputError(Exception):
    """A handler returned something no client can be sent."""


def json_value(value: Any) -> Any:
    """Plain JSON data from a handler's return value (dicts, TypedDicts, lists, scalars
    pass through; a pydantic-style model or a dataclass is dumped)."""
    dump = getattr(value, "model_dump", None)
    if dump is not None and not isinstance(value, type):
        return dump(mode="json", by_alias=True, exclude_unset=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


def json_text(value: Any) -> str:
    try:
        return exact_json.dumps(value).decode()  # integers beyond 64 bits too
    except (TypeError, orjson.JSONEncodeError) as exc:
        raise OutputError(f"the result is not JSON data: {exc}") from None


def text_block(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def is_content_block(value: dict[str, Any]) -> bool:
    """Whether a dict a handler returned is a content block rather than data: its
    ``type`` is a content type, it has that block's required fields as the protocol types
    them, and no key such a block lacks. What the content constructors (``text()``,
    ``image()``, ...) and the typed blocks make always is; data that merely has a ``type``
    key (``{"type": "shell_call", "id": 1}``) never is."""
    kind = value.get("type")
    if type(kind) is not str:
        return False
    keys = _BLOCK_KEYS.get(kind)
    if keys is None or not value.keys() <= keys:
        return False
    return all(
        isinstance(value.get(key), dict if key == "resource" else str) for key in _REQUIRED[kind]
    )


def data_of(value: Any) -> Any:
    """The JSON value of a return value that is data rather than text or content (an
    object that is no content block, a number, a model, a dataclass); ``UNSET`` for
    None, text, a content block or a list. Content blocks carry data as JSON text;
    a revision whose result is a bare JSON value (2024-10-07) sends the value itself."""
    if value is None or isinstance(value, str | list | tuple):
        return UNSET
    if isinstance(value, dict):
        return UNSET if is_content_block(value) else value
    return json_value(value)


def content_of(value: Any) -> list[Any]:
    """Content blocks from the return value of a tool without outputSchema."""
    if value is None:
        return []
    if isinstance(value, str):
        return [text_block(value)]
    if isinstance(value, list | tuple):
        return [text_block(item) if isinstance(item, str) else item for item in value]
    data = data_of(value)
    return [value] if data is UNSET else [text_block(json_text(data))]


def for_revision(blocks: list[Any], revision: Revision) -> list[Any]:
    """The blocks as ``revision`` defines them; the list itself when nothing changes."""
    out: list[Any] | None = None
    for index, block in enumerate(blocks):
        converted = _block(block, index, revision)
        if converted is not block and out is None:
            out = list(blocks[:index])
        if out is not None:
            out.append(converted)
    return blocks if out is None else out


def _block(block: Any, index: int, revision: Revision) -> Any:
    if type(block) is not dict:
        raise OutputError(f"content[{index}] is {type(block).__name__}, not a content block")
    kind = block.get("type")
    if not isinstance(kind, str) or kind not in _REQUIRED:
        raise OutputError(f"content[{index}] has unknown type {kind!r}")
    for key in _REQUIRED[kind]:
        if key not in block:
            raise OutputError(f"content[{index}] ({kind}) lacks {key!r}")
    allowed = revision.content.get(kind)
    if allowed is None:
        block = _AS_OLDER[kind](block, index)
        allowed = revision.content[block["type"]]
    if not block.keys() <= allowed:
        block = {k: v for k, v in block.items() if k in allowed}
    annotations = block.get("annotations")
    if isinstance(annotations, dict) and not annotations.keys() <= revision.annotations:
        block = {**block, "annotations": _only(annotations, revision.annotations)}
    resource = block.get("resource")
    if isinstance(resource, dict) and not resource.keys() <= revision.resource_contents:
        block = {**block, "resource": _only(resource, revision.resource_contents)}
    return block


def _only(mapping: dict[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k in keys}


def _audio_as_resource(block: dict[str, Any], index: int) -> dict[str, Any]:
    embedded: dict[str, Any] = {
        "type": "resource",
        "resource": {
            "uri": f"content://audio/{index}",
            "mimeType": block["mimeType"],
            "blob": block["data"],
        },
    }
    if "annotations" in block:
        embedded["annotations"] = block["annotations"]
    return embedded


def _link_as_text(block: dict[str, Any], index: int) -> dict[str, Any]:
    label = block.get("title") or block["name"]
    text = f"[{label}]({block['uri']})"
    if block.get("mimeType"):
        text += f" ({block['mimeType']})"
    if block.get("description"):
        text += f": {block['description']}"
    converted = text_block(text)
    if "annotations" in block:
        converted["annotations"] = block["annotations"]
    return converted


_AS_OLDER = {"audio": _audio_as_resource, "resource_link": _link_as_text}
