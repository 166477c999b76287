"""What each protocol revision defines for a tools server, as a chain of subclasses.

Each revision states only what it changes relative to the one before, so a reader
sees the protocol's history in the class bodies (../shared/REVISIONS.md has the table).
"""

from __future__ import annotations

from typing import ClassVar


class Revision2024_11_05:
    name: ClassVar[str] = "2024-11-05"
    tool_fields: ClassVar[frozenset[str]] = frozenset({"name", "description", "inputSchema"})
    annotation_fields: ClassVar[frozenset[str]] = frozenset()
    content_types: ClassVar[frozenset[str]] = frozenset({"text", "image", "resource"})
    structured_content: ClassVar[bool] = False
    output_schema_any_json: ClassVar[bool] = False
    input_schema_any_root: ClassVar[bool] = False
    invalid_arguments_as_tool_error: ClassVar[bool] = False
    stateless: ClassVar[bool] = False
    batching: ClassVar[bool] = False
    schema_dialect: ClassVar[str] = "draft7"


class Revision2025_03_26(Revision2024_11_05):
    name = "2025-03-26"
    tool_fields = Revision2024_11_05.tool_fields | {"annotations"}
    annotation_fields = frozenset(
        {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
    )
    content_types = Revision2024_11_05.content_types | {"audio"}
    batching = True


class Revision2025_06_18(Revision2025_03_26):
    name = "2025-06-18"
    tool_fields = Revision2025_03_26.tool_fields | {"title", "outputSchema", "_meta"}
    content_types = Revision2025_03_26.content_types | {"resource_link"}
    structured_content = True
    batching = False


class Revision2025_11_25(Revision2025_06_18):
    name = "2025-11-25"
    tool_fields = Revision2025_06_18.tool_fields | {"icons", "execution"}
    invalid_arguments_as_tool_error = True
    schema_dialect = "2020-12"


class Revision2026_07_28(Revision2025_11_25):
    name = "2026-07-28"
    tool_fields = Revision2025_11_25.tool_fields - {"execution"}
    output_schema_any_json = True
    input_schema_any_root = True
    stateless = True


Revision = type[Revision2024_11_05]

REVISIONS: dict[str, Revision] = {
    cls.name: cls
    for cls in (
        Revision2024_11_05,
        Revision2025_03_26,
        Revision2025_06_18,
        Revision2025_11_25,
        Revision2026_07_28,
    )
}
