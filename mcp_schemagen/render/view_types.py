"""The TypeScript declarations of each MCP Apps view (docs/how-to/apps.md), written
beside its HTML file (``views/counter.html`` → ``views/counter.d.ts``): the arguments and
structured result of every tool the view may call and of the tools that name it, typed
by the same inputSchema and outputSchema as the Python handlers (typescript.py), so the
view's ``ontoolinput``, ``ontoolresult`` and ``callServerTool`` are checked by tsc."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from mcp_schemagen.compile.ir import CompiledTool
from mcp_schemagen.compile.project import Project
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.provenance import carries_header, header
from mcp_schemagen.render.typescript import TypeScript, doc_comment, literal, member_name
from mcp_schemagen.runtime.apps import VIEW_MIME_TYPE
from mcp_schemagen.runtime.resources.table import FILE_KEY

# What every tool result carries beside its structured content (CallToolResult).
_RESULT = """/** A tool's result as the view receives it: its content and its structured data. */
export interface ToolResultOf<Structured> {
  content: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: Structured;
  isError?: boolean;
  _meta?: { [key: string]: unknown };
}
"""


def _ui(definition: dict[str, Any]) -> dict[str, Any]:
    meta = definition.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else {}


def _linked(definition: dict[str, Any]) -> tuple[Any, Any]:
    """The view a tool names, in the extension's form and its deprecated flat key."""
    meta = definition.get("_meta")
    legacy = meta.get("ui/resourceUri") if isinstance(meta, dict) else None
    return _ui(definition).get("resourceUri"), legacy


def callable_by_views(tool: CompiledTool) -> bool:
    """Whether a view may call ``tool``: its visibility includes "app" (the default)."""
    visibility = _ui(tool.definition).get("visibility")
    return not isinstance(visibility, list) or "app" in visibility


def shown_by_hosts(tool: CompiledTool) -> bool:
    """Whether the model may call ``tool`` (its visibility includes "model", the default)."""
    visibility = _ui(tool.definition).get("visibility")
    return not isinstance(visibility, list) or "model" in visibility


def view_type_files(project: Project) -> tuple[list[OutputFile], list[Diagnostic]]:
    """One ``.d.ts`` per view served from a file of the project, and an error for each
    that would replace a file the generator did not write (a user's own, a link)."""
    files = []
    problems = []
    callable_tools = sorted(
        (t for t in project.tools if callable_by_views(t)), key=lambda t: t.name
    )
    for resource in project.resources:
        definition = resource.definition
        html = definition.get(FILE_KEY)
        if definition.get("mimeType") != VIEW_MIME_TYPE or not isinstance(html, str):
            continue
        uri = definition.get("uri")
        naming = sorted(
            (t for t in project.tools if uri in _linked(t.definition)),
            key=lambda t: t.name,
        )
        # A host shows the view for the model's calls; a tool for the view alone that
        # names it too is called from inside the view, not shown by it.
        naming = [t for t in naming if shown_by_hosts(t)] or naming
        path = project.server.root / PurePosixPath(html).with_suffix(".d.ts")
        inputs = [(t.file, project.inputs[t.file]) for t in [*naming, *callable_tools]]
        inputs.append((resource.file, project.inputs[resource.file]))
        text = _declarations(str(uri), naming, callable_tools, sorted(set(inputs)))
        files.append(OutputFile(Path(path), text))
        if path.is_symlink() or (path.exists() and not carries_header(path)):
            problems.append(
                error(
                    resource.file,
                    pointer_join(resource.pointer, FILE_KEY),
                    f"{path.relative_to(project.server.root).as_posix()} is not a file "
                    "mcp-codegen wrote, and the build writes this view's TypeScript "
                    "declarations there; move your file away (nothing was changed)",
                )
            )
    return files, problems


def _declarations(
    uri: str,
    naming: list[CompiledTool],
    callable_tools: list[CompiledTool],
    inputs: list[tuple[str, str]],
) -> str:
    top = header(inputs, note=f"Types of the MCP Apps view {uri}, from its tools' schemas.")
    parts = ["\n".join(f"//{line[1:]}" for line in top.splitlines()) + "\n"]
    described = {t.name: t for t in [*naming, *callable_tools]}
    for name in sorted(described):
        parts.append(_tool_types(described[name]))
    parts.append(_RESULT)
    members = "".join(
        f"  {member_name(t.name)}: {{ arguments: {t.class_prefix}Arguments; structuredContent: "
        f"{t.class_prefix}Result }};\n"
        for t in callable_tools
    )
    lead = doc_comment('The tools this view may call (visibility includes "app"), by name.', "")
    parts.append(f"{lead}export interface ViewTools {{\n{members}}}\n")
    parts.append(
        "/** What callServerTool takes: a tool's name and its arguments, matched. */\n"
        "export type CallToolParams = {\n"
        '  [Name in keyof ViewTools]: { name: Name; arguments: ViewTools[Name]["arguments"] };\n'
        "}[keyof ViewTools];\n"
        "/** What callServerTool returns for the tool named. */\n"
        "export type CallToolResult<Name extends keyof ViewTools> = "
        'ToolResultOf<ViewTools[Name]["structuredContent"]>;\n'
    )
    arguments = " | ".join(f"{t.class_prefix}Arguments" for t in naming) or "never"
    results = " | ".join(f"{t.class_prefix}Result" for t in naming) or "never"
    host_run = ", ".join(t.name for t in naming) or "none"
    parts.append(
        f"/** The tools whose call the host shows in this view: {host_run}. */\n"
        f"export type ViewToolName = {' | '.join(literal(t.name) for t in naming) or 'never'};\n"
        "/** What ontoolinput receives: the arguments of the call the view shows. */\n"
        f"export interface ToolInput {{\n  arguments: {arguments};\n}}\n"
        "/** What ontoolresult receives: that call's result. */\n"
        f"export type ToolResult = ToolResultOf<{results}>;\n"
    )
    return "\n".join(parts)


def _tool_types(tool: CompiledTool) -> str:
    definition = tool.definition
    description = definition.get("description")
    lead = doc_comment(f"{tool.name}: {description}", "") if isinstance(description, str) else ""
    input_schema = definition.get("inputSchema", {})
    output_schema = definition.get("outputSchema")
    arguments = TypeScript(input_schema).of(input_schema)
    result = TypeScript(output_schema).of(output_schema) if output_schema is not None else "unknown"
    return (
        f"{lead}export type {tool.class_prefix}Arguments = {arguments};\n"
        f"/** {tool.name}'s structuredContent (its outputSchema; unknown without one). */\n"
        f"export type {tool.class_prefix}Result = {result};\n"
    )
