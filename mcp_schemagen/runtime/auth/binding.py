"""A session belongs to the principal that opened it.

The session's record in the store (shared by every worker) gets one more field at
initialize: a digest of the issuer and subject. A later request on the session with
another subject's token is answered as if the session did not exist (404), so a leaked
session id is worth nothing without its owner's token.
"""

from __future__ import annotations

import hashlib
import hmac

from ..store import Store
from .principal import Principal

FIELD = "principal"


def owner_of(principal: Principal) -> str:
    text = f"{principal.issuer}\x00{principal.subject}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


async def bind(store: Store, session_id: str, principal: Principal) -> None:
    await store.update_session(session_id, {FIELD: owner_of(principal)})


async def belongs_to(store: Store, session_id: str, principal: Principal) -> bool:
    """False for a session of another principal, or one never bound; True also for an
    unknown session, which the endpoint then answers with its own 404."""
    record = await store.load_session(session_id)
    if record is None:
        return True
    owner = record.get(FIELD)
    return type(owner) is str and hmac.compare_digest(owner, owner_of(principal))
