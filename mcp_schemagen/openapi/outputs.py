"""An operation's success response -> the tool's outputSchema: the first 2xx response
(by code, ranges last) with a JSON body. Not every revision publishes an outputSchema
whose root is not an object; the build says which clients lose it (load/published.py)."""

from __future__ import annotations

from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, pointer_join, warning
from mcp_schemagen.openapi.operations import Operation
from mcp_schemagen.openapi.schemas import Translation


def _is_json(media: str) -> bool:
    bare = media.split(";")[0].strip().lower()
    return bare == "application/json" or (
        bare.startswith("application/") and bare.endswith("+json")
    )


def build_output(
    op: Operation, translation: Translation, label: str
) -> tuple[Any | None, list[Diagnostic]]:
    responses = op.operation.get("responses")
    if not isinstance(responses, dict):
        return None, []
    warnings = []
    codes: list[str] = []
    for code in responses:
        if not isinstance(code, str):  # YAML reads an unquoted 200 as an integer
            at = pointer_join(op.own_pointer, "responses", str(code))
            warnings.append(
                warning(label, at, f"response code {code!r} read as the string {str(code)!r}")
            )
        codes.append(str(code))
    by_code = {str(code): value for code, value in responses.items()}
    success = sorted(c for c in codes if c.startswith("2") and c[1:].isdigit())
    success += [c for c in codes if c.upper() == "2XX"]
    for code in success:
        response, inner = op.scope.deref(by_code[code])
        content = response.get("content") if isinstance(response, dict) else None
        if not isinstance(content, dict):
            return None, warnings  # the first success has no body: the tool has no output
        for media, entry in content.items():
            if _is_json(media) and isinstance(entry, dict) and "schema" in entry:
                here = pointer_join(op.own_pointer, "responses", code)
                base = op.scope.pointer_of(by_code[code], here)
                at = pointer_join(base, "content", media, "schema")
                return translation.schema(entry["schema"], inner, at), warnings
        return None, warnings
    return None, warnings
