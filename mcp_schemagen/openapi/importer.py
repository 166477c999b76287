"""`mcp-codegen import openapi`: the document read, operations selected and curated, each
translated on its own (one that cannot be is skipped with its reason, never blocking the
rest), and the tool files planned. Nothing here writes: the command writes the plan
with mcp_schemagen.write, all or nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schemagen.check.schema_checks import check_schema
from mcp_schemagen.diagnostics import (
    BuildError,
    Diagnostic,
    error,
    has_errors,
    pointer_join,
    warning,
)
from mcp_schemagen.load.http_call import HTTP_KEY
from mcp_schemagen.openapi.curation import Curation, Override, read_curation
from mcp_schemagen.openapi.document import DocumentError, UnresolvableRef, read_data, read_document
from mcp_schemagen.openapi.inputs import Unsupported
from mcp_schemagen.openapi.names import raw_name, unique
from mcp_schemagen.openapi.operations import EVERYTHING, Operation, Selection, operations
from mcp_schemagen.openapi.schemas import SCHEMA_BUDGET, SchemaError, SharedDefs
from mcp_schemagen.openapi.tool import ImportedTool, build_tool
from mcp_schemagen.render.output import OutputFile


@dataclass
class ImportPlan:
    api: str
    files: list[OutputFile] = field(default_factory=list)
    stale: list[Path] = field(default_factory=list)  # imported earlier, gone from the document
    tools: list[ImportedTool] = field(default_factory=list)
    skipped: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    operation_count: int = 0
    cut_count: int = 0  # tools whose schemas were cut to the schema budget


def api_name(title: Any, fallback: str) -> str:
    """The document's short name (it prefixes env vars): from ``info.title``."""
    text = re.sub(r"[^a-z0-9]+", "_", str(title or fallback).lower()).strip("_")
    return text if text and text[0].isalpha() else f"api_{text}".rstrip("_")


def _imported_by(path: Path) -> dict[str, Any] | None:
    """The HTTP identity of a tool file an import wrote, or None (a file of the user's)."""
    try:
        data = read_data(path)
    except Exception:  # unreadable: certainly not one of ours to replace
        return None
    http = data.get(HTTP_KEY) if isinstance(data, dict) else None
    return http if isinstance(http, dict) else None


def invalid_schema(definition: dict[str, Any]) -> str | None:
    """Why a translated schema would not build (the document's own schema was not valid:
    `properties: []`, `type: 5`), in the build's own words, or None."""
    for key in ("inputSchema", "outputSchema"):
        if key in definition:
            problems = check_schema(definition[key], "", f"/{key}")
            if problems:
                first = problems[0]
                return f"its {key} would not build: {first.pointer}: {first.message}"
    return None


def _skip(label: str, op: Operation, pointer: str, reason: str) -> Diagnostic:
    named = f" ({op.operation_id})" if op.operation_id else ""
    return warning(label, pointer, f"{op.method} {op.path}{named} is not imported: {reason}")


def plan_import(
    spec: Path,
    label: str,
    out_dir: Path,
    *,
    selection: Selection = EVERYTHING,
    curation_path: Path | None = None,
    curation_label: str = "",
    api: str | None = None,
    schema_budget: int = SCHEMA_BUDGET,
) -> ImportPlan:
    """Raises BuildError when the document or the curation file cannot be used at all."""
    try:
        document = read_document(spec, label)
    except DocumentError as exc:
        raise BuildError([error(label, exc.pointer, exc.message)]) from exc
    curation = Curation()
    if curation_path is not None and curation_path.exists():
        curation, problems = read_curation(curation_path, curation_label)
        if has_errors(problems):
            raise BuildError(problems)
    info = document.contents.get("info")
    title = info.get("title") if isinstance(info, dict) else None
    name = api_name(api, spec.stem) if api else api_name(title, spec.stem)
    plan = ImportPlan(name)
    chosen = curation.selection.merged(selection)
    existing = sorted(out_dir.glob("*.json")) if out_dir.is_dir() else []
    ours = {p: h for p in existing if (h := _imported_by(p)) is not None and h.get("api") == name}
    taken = {p.stem.lower() for p in existing if p not in ours}
    used_overrides: set[str] = set()
    shared = SharedDefs()  # each shared schema translated once per import
    for op in operations(document):
        plan.operation_count += 1
        if not chosen.chooses(op):
            continue
        override = curation.overrides.get(op.key) or curation.overrides.get(
            f"{op.method} {op.path}"
        )
        if override is not None:
            used_overrides.add(op.key if op.key in curation.overrides else f"{op.method} {op.path}")
        override = override or Override()
        if override.skip:
            continue
        tool_name = unique(override.name or raw_name(op.operation_id, op.method, op.path), taken)
        try:
            if op.error is not None:
                raise Unsupported(op.pointer, op.error)
            if "callbacks" in op.operation:
                raise Unsupported(
                    pointer_join(op.pointer, "callbacks"),
                    "it has callbacks (the API calls back a URL of the caller's, which an MCP "
                    "server does not serve); write this tool by hand, or `skip: true` it",
                )
            tool = build_tool(
                document, op, tool_name, name, override, curation_label, shared, schema_budget
            )
        except Unsupported as exc:
            plan.skipped.append(_skip(exc.file or label, op, exc.pointer, exc.message))
            continue
        except (UnresolvableRef, SchemaError) as exc:
            plan.skipped.append(_skip(label, op, op.pointer, str(exc)))
            continue
        except RecursionError:
            plan.skipped.append(_skip(label, op, op.pointer, "its schemas nest too deeply"))
            continue
        except Exception as exc:  # one odd operation never stops the others
            reason = f"it could not be read ({type(exc).__name__}: {exc}); please report this"
            plan.skipped.append(_skip(label, op, op.pointer, reason))
            continue
        invalid = invalid_schema(tool.definition)
        if invalid is not None:
            plan.skipped.append(_skip(label, op, op.pointer, invalid))
            continue
        plan.tools.append(tool)
        plan.warnings.extend(tool.warnings)
        plan.cut_count += tool.cut
    for key in sorted(set(curation.overrides) - used_overrides):
        plan.warnings.append(
            warning(
                curation_label,
                pointer_join("/operations", key),
                f"no operation {key!r} in {label}; kept, remove it if the API dropped it",
            )
        )
    written = set()
    for tool in plan.tools:
        path = out_dir / f"{tool.name}.json"
        written.add(path)
        text = json.dumps(tool.definition, indent=2, ensure_ascii=False) + "\n"
        plan.files.append(OutputFile(path, text))
    plan.stale = sorted(p for p in ours if p not in written)
    plan.warnings = condensed(sorted(set(plan.warnings)))
    return plan


# Warnings of one kind shown in full; the rest of that kind in one line. Asana's document
# has 1,500 unquoted response codes: as many lines would hide every other warning.
SHOWN_OF_A_KIND = 3


def condensed(warnings: list[Diagnostic]) -> list[Diagnostic]:
    """The first few warnings of each kind (same file, same message but for numbers and
    quoted names), then one saying how many more there are and where the next is."""
    kinds: dict[tuple[str, str], list[Diagnostic]] = {}
    for diagnostic in warnings:
        kind = re.sub(r"\d+|'[^']*'", "_", diagnostic.message)
        kinds.setdefault((diagnostic.file, kind), []).append(diagnostic)
    kept: list[Diagnostic] = []
    for same in kinds.values():
        kept.extend(same[:SHOWN_OF_A_KIND])
        if len(same) > SHOWN_OF_A_KIND:
            rest = same[SHOWN_OF_A_KIND:]
            kept.append(
                warning(
                    rest[0].file,
                    rest[0].pointer,
                    f"{rest[0].message} (and {len(rest) - 1:,} more like it, not listed; "
                    "each cleaned the same way)",
                )
            )
    return sorted(kept)
