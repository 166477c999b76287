"""What each protocol revision defines for a tools server.

One source of truth for the generator and the generated server: the runtime's own table
(templates/runtime/protocol.py, copied into every server), where each revision is the one
before with what it changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from codegen.runtime_files import runtime_module

Revision = Any  # templates/runtime/protocol.py's Revision; loaded from a file, so untyped here

REVISIONS: Mapping[str, Revision] = runtime_module("protocol").KNOWN
