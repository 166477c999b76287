"""tools/list cursors: opaque to the client, a page index to the server."""

from __future__ import annotations

import base64
import binascii
from typing import Any

_PREFIX = b"tools:"


def encode_cursor(index: int) -> str:
    return base64.urlsafe_b64encode(b"%s%d" % (_PREFIX, index)).decode()


def page_index(cursor: Any) -> int | None:
    """The page a cursor names; None for anything this server did not hand out."""
    if type(cursor) is not str:
        return None
    try:
        decoded = base64.urlsafe_b64decode(cursor.encode("ascii"))
    except (ValueError, binascii.Error, UnicodeEncodeError):
        return None
    if not decoded.startswith(_PREFIX):
        return None
    digits = decoded[len(_PREFIX) :]
    return int(digits) if digits.isdigit() and len(digits) < 10 else None
