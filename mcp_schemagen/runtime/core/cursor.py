"""List cursors: opaque to the client, a page index of one list to the server.

Each list has its own prefix (``tools:``), so a cursor of one list is refused by another.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any


def encode_cursor(prefix: str, index: int) -> str:
    return base64.urlsafe_b64encode(f"{prefix}:{index}".encode()).decode()


def page_index(prefix: str, cursor: Any) -> int | None:
    """The page a cursor names; None for anything this server did not hand out for the
    list ``prefix`` names."""
    if type(cursor) is not str:
        return None
    try:
        decoded = base64.urlsafe_b64decode(cursor.encode("ascii"))
    except (ValueError, binascii.Error, UnicodeEncodeError):
        return None
    head = f"{prefix}:".encode()
    if not decoded.startswith(head):
        return None
    digits = decoded[len(head) :]
    return int(digits) if digits.isdigit() and len(digits) < 10 else None
