"""What a tool handler returns as one dict is a content block only when it is shaped as
one (its type a content type, that block's required fields, no key such a block lacks);
any other dict is data, sent as JSON text, whatever its ``type`` key says."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_schemagen.runtime import content
from mcp_schemagen.runtime.core.conversion import content_of, data_of, is_content_block
from mcp_schemagen.runtime.result import UNSET

BLOCKS: list[dict[str, Any]] = [
    dict(content.text("hi")),
    dict(content.image(b"\x89PNG", "image/png")),
    dict(content.audio(b"RIFF", "audio/wav")),
    dict(content.resource_link("file:///a", "a", mime_type="text/plain", description="d")),
    dict(content.embedded_text("file:///a", "x", mime_type="text/plain")),
    dict(content.embedded_blob("file:///a", b"x")),
    {"type": "text", "text": "hi", "annotations": {"priority": 1.0}, "_meta": {"k": 1}},
    {"type": "resource_link", "uri": "u", "name": "n", "title": "t", "size": 3},
]
DATA: list[dict[str, Any]] = [
    {"type": "shell_call", "id": 1},  # a type no content block has
    {"type": "text", "id": 1},  # a content type, but not that block's fields
    {"type": "text", "text": "hi", "id": 1},  # one key a text block lacks
    {"type": "text", "text": 5},  # the field is not text
    {"type": "image", "url": "https://example.com/a.png"},
    {"type": "image", "data": "AAAA"},  # lacks mimeType
    {"type": "resource", "resource": "file:///a"},  # resource is not contents
    {"type": 3, "text": "hi"},
    {"kind": "text", "text": "hi"},
]


@pytest.mark.parametrize("block", BLOCKS)
def test_a_block_is_content(block: dict[str, Any]) -> None:
    assert is_content_block(block)
    assert data_of(block) is UNSET
    assert content_of(block) == [block]


@pytest.mark.parametrize("value", DATA)
def test_a_dict_with_a_type_key_is_data(value: dict[str, Any]) -> None:
    assert not is_content_block(value)
    assert data_of(value) is value
    (sent,) = content_of(value)
    assert sent["type"] == "text" and sent["text"].startswith("{")
