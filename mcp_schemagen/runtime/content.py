"""Content blocks a handler may return, typed for the editor, plain dicts at run time."""

from __future__ import annotations

import base64
from typing import Any, Literal, NotRequired, TypedDict


class Annotations(TypedDict, total=False):
    audience: list[Literal["user", "assistant"]]
    priority: float
    lastModified: str


class TextContent(TypedDict):
    type: Literal["text"]
    text: str
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class ImageContent(TypedDict):
    type: Literal["image"]
    data: str
    mimeType: str
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class AudioContent(TypedDict):
    type: Literal["audio"]
    data: str
    mimeType: str
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class ResourceLink(TypedDict):
    type: Literal["resource_link"]
    uri: str
    name: str
    title: NotRequired[str]
    description: NotRequired[str]
    mimeType: NotRequired[str]
    size: NotRequired[int]
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


class TextResourceContents(TypedDict):
    uri: str
    text: str
    mimeType: NotRequired[str]
    _meta: NotRequired[dict[str, Any]]


class BlobResourceContents(TypedDict):
    uri: str
    blob: str
    mimeType: NotRequired[str]
    _meta: NotRequired[dict[str, Any]]


class EmbeddedResource(TypedDict):
    type: Literal["resource"]
    resource: TextResourceContents | BlobResourceContents
    annotations: NotRequired[Annotations]
    _meta: NotRequired[dict[str, Any]]


ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource


def text(value: str) -> TextContent:
    return {"type": "text", "text": value}


def image(data: bytes, mime_type: str) -> ImageContent:
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def audio(data: bytes, mime_type: str) -> AudioContent:
    return {"type": "audio", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime_type}


def resource_link(
    uri: str, name: str, *, mime_type: str | None = None, description: str | None = None
) -> ResourceLink:
    link: ResourceLink = {"type": "resource_link", "uri": uri, "name": name}
    if mime_type is not None:
        link["mimeType"] = mime_type
    if description is not None:
        link["description"] = description
    return link


def embedded_text(uri: str, value: str, *, mime_type: str | None = None) -> EmbeddedResource:
    contents: TextResourceContents = {"uri": uri, "text": value}
    if mime_type is not None:
        contents["mimeType"] = mime_type
    return {"type": "resource", "resource": contents}


def embedded_blob(uri: str, data: bytes, *, mime_type: str | None = None) -> EmbeddedResource:
    contents: BlobResourceContents = {"uri": uri, "blob": base64.b64encode(data).decode("ascii")}
    if mime_type is not None:
        contents["mimeType"] = mime_type
    return {"type": "resource", "resource": contents}
