"""One operation -> one tool definition: title and description, inputs, output,
annotations from the method, and the HTTP identity the build generates the call from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, warning
from mcp_schemagen.load.http_call import HTTP_KEY
from mcp_schemagen.openapi.curation import Override
from mcp_schemagen.openapi.document import Document
from mcp_schemagen.openapi.inputs import build_inputs
from mcp_schemagen.openapi.operations import Operation
from mcp_schemagen.openapi.outputs import build_output
from mcp_schemagen.openapi.schemas import SCHEMA_BUDGET, SharedDefs, Translation
from mcp_schemagen.openapi.security import operation_security

# What the method promises (RFC 9110): safe methods read, PUT and DELETE are idempotent,
# DELETE destroys. openWorldHint: every call reaches a system outside the server.
_ANNOTATIONS: dict[str, dict[str, bool]] = {
    "GET": {"readOnlyHint": True, "openWorldHint": True},
    "HEAD": {"readOnlyHint": True, "openWorldHint": True},
    "OPTIONS": {"readOnlyHint": True, "openWorldHint": True},
    "TRACE": {"readOnlyHint": True, "openWorldHint": True},
    "PUT": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True,
            "openWorldHint": True},
    "DELETE": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True,
               "openWorldHint": True},
    "POST": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
             "openWorldHint": True},
    "PATCH": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
              "openWorldHint": True},
}  # fmt: skip


@dataclass(frozen=True)
class ImportedTool:
    name: str
    definition: dict[str, Any]
    warnings: list[Diagnostic]
    cut: bool = False  # some $defs were cut to the schema budget


def server_url(document: Document, op: Operation) -> str:
    """The operation's first server (operation, path item, document), its variables at
    their defaults. A relative one ("/api/v3") needs API_BASE_URL set when the server runs."""
    for owner in (op.operation, op.path_item, document.contents):
        servers = owner.get("servers")
        if isinstance(servers, list) and servers and isinstance(servers[0], dict):
            url = str(servers[0].get("url", ""))
            variables = servers[0].get("variables")
            for name, variable in (variables or {}).items() if isinstance(variables, dict) else ():
                if isinstance(variable, dict) and "default" in variable:
                    url = url.replace(f"{{{name}}}", str(variable["default"]))
            return url.rstrip("/")
    return ""


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def build_tool(
    document: Document,
    op: Operation,
    name: str,
    api: str,
    override: Override,
    source: str,
    shared: SharedDefs,
    budget: int = SCHEMA_BUDGET,
) -> ImportedTool:
    """Raises Unsupported, UnresolvableRef or SchemaError when the operation cannot be had."""
    scope = document.scope
    inputs_translation = Translation(document.version, "input", document.label, scope.base, shared)
    inputs = build_inputs(op, inputs_translation, override.fixed)
    output_translation = Translation(document.version, "output", document.label, scope.base, shared)
    output, warnings = build_output(op, output_translation, document.label)
    security, security_warnings = operation_security(api, document.contents, op, document.label)
    warnings = inputs_translation.warnings + output_translation.warnings + warnings
    warnings += security_warnings
    for unused in inputs.unused_fixed:
        warnings.append(
            warning(
                source,
                f"/operations/{op.key}/fixed/{unused}",
                f"{op.key} has no parameter {unused!r} to fix; remove it from the curation",
            )
        )
    summary, description = (
        _text(op.operation.get("summary")),
        _text(op.operation.get("description")),
    )
    definition: dict[str, Any] = {"name": name}
    title = override.title or summary
    if title:
        definition["title"] = title
    text = override.description or description or summary
    if text:
        definition["description"] = text
    definition["inputSchema"] = inputs_translation.finish(inputs.schema, budget)
    if output is not None:
        definition["outputSchema"] = output_translation.finish(output, budget)
    cut = False
    for key, translation in (
        ("inputSchema", inputs_translation),
        ("outputSchema", output_translation),
    ):
        if translation.cut:
            cut = True
            warnings.append(
                _cut_warning(document.label, op.pointer, name, key, translation, budget)
            )
    definition["annotations"] = dict(_ANNOTATIONS[op.method])
    http: dict[str, Any] = {
        "api": api,
        "method": op.method,
        "path": op.path,
        "server": server_url(document, op),
        "parameters": inputs.parameters,
    }
    if inputs.body:
        http["body"] = inputs.body
    if inputs.fixed:
        http["fixed"] = inputs.fixed
    if security:
        http["security"] = security
    http["from"] = f"{document.label}#{op.pointer}"
    definition[HTTP_KEY] = http
    return ImportedTool(name, definition, warnings, cut)


_CUT_NAMES_SHOWN = 5  # the tool file names every cut def; the message, the first few


def _cut_warning(
    label: str, pointer: str, name: str, key: str, translation: Translation, budget: int
) -> Diagnostic:
    shown = ", ".join(translation.cut[:_CUT_NAMES_SHOWN])
    more = len(translation.cut) - _CUT_NAMES_SHOWN
    listed = f"{shown}, and {more} more" if more > 0 else shown
    return warning(
        label,
        pointer,
        f"{name}: {key} is larger than {budget // 1024} KB with every schema it reaches; "
        f"{len(translation.cut)} of its $defs farthest from the root now accept anything "
        f"({listed}; each says where its original is). Raise --schema-budget to keep more",
    )
