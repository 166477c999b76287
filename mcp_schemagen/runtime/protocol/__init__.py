"""What each protocol revision defines, and how it shapes messages: the revision registry.

The one registry of revisions: the generator reads it (which revisions exist, in which
order, what a tool looks like to each revision's clients), the server answers by it, and
``specs/revisions.toml`` pins a schema file for exactly the names listed here (a test ties
the two). Each revision is a subclass of the one before that overrides what changed, so
the protocol's history reads top to bottom; the facts (field sets) are checked against
each revision's schema.json by the tests, and where revisions differ in the *shape* of a
message, the difference is a method here rather than a flag tested at each use.

codes.py holds the numbers and names every revision shares, revision.py the root of the
chain (2024-10-07) and history.py the later revisions and their order, resources.py what
each revision defines for resources. This module names them all, so a reader imports
``protocol`` and never a file of it.
"""

from .codes import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LOG_LEVELS,
    LOG_RANK,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from .history import (
    BY_NAME,
    DEFAULT_NAMES,
    NAMES,
    REVISIONS,
    Revision2024_11_05,
    Revision2025_03_26,
    Revision2025_06_18,
    Revision2025_11_25,
    Revision2026_07_28,
    newest,
    ordered,
)
from .revision import Omission, Revision

__all__ = [
    "BY_NAME",
    "DEFAULT_NAMES",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "LOG_LEVELS",
    "LOG_RANK",
    "META_CLIENT_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_LOG_LEVEL",
    "META_PROTOCOL_VERSION",
    "META_SERVER_INFO",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "NAMES",
    "PARSE_ERROR",
    "REVISIONS",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "Omission",
    "Revision",
    "Revision2024_11_05",
    "Revision2025_03_26",
    "Revision2025_06_18",
    "Revision2025_11_25",
    "Revision2026_07_28",
    "newest",
    "ordered",
]
