"""load -> check -> compile -> render -> merge: from a project folder to the files that
should be on disk, which mcp_schemagen.write puts there (or diffs). Nothing here writes
to the project; the user cache (mcp_schemagen.caches) is filled on the way."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mcp_schemagen import caches
from mcp_schemagen.check.notification_checks import unkept_notification_keys
from mcp_schemagen.compile.compiler import compile_tools
from mcp_schemagen.compile.completions import compile_completers
from mcp_schemagen.compile.prompts import compile_prompts
from mcp_schemagen.compile.resources import compile_resources, taken_names
from mcp_schemagen.diagnostics import (
    BuildError,
    Diagnostic,
    Level,
    error,
    has_errors,
    warning,
)
from mcp_schemagen.handlers.file import handlers_file, spec_to_json
from mcp_schemagen.handlers.signatures import handler_module_spec
from mcp_schemagen.kind_sources import checked_sources, of_kinds
from mcp_schemagen.load import specs
from mcp_schemagen.load.config import Config, load_config
from mcp_schemagen.load.containment import package_link_problems
from mcp_schemagen.load.tools import tool_label
from mcp_schemagen.record.fingerprint import input_digests
from mcp_schemagen.record.manifest import HANDLERS_MODULE, MANIFEST_NAME, Manifest, read_manifest
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.package import no_reuse, render_package
from mcp_schemagen.render.provenance import carries_header, sha256_text

Progress = Callable[[str], None]


def quiet(_: str) -> None:
    pass


def stderr_progress(message: str) -> None:
    print(f"mcp-codegen: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Plan:
    config: Config
    files: list[OutputFile]  # every generated file, handlers module included
    stale: list[Path]  # files an earlier build generated that this one does not
    warnings: list[Diagnostic]
    tool_count: int
    prompt_count: int = 0
    resource_count: int = 0  # static resources and resource templates


def protocol_model_files(config: Config, progress: Progress) -> list[OutputFile]:
    """PACKAGE.protocol: one module per revision, each made once per revision and generator
    version into the shared cache (protocol_models), then copied from there."""
    # Imported only for projects that ask for the models (it loads datamodel-code-generator).
    from mcp_schemagen.protocol_models.models import (
        module_name,
        render_protocol_init,
        render_protocol_module,
    )

    files = []
    for revision in config.revisions:
        progress(f"protocol models {revision}")
        files.append(
            OutputFile(
                config.package_dir / "protocol" / f"{module_name(revision)}.py",
                render_protocol_module(specs.load(revision)),
            )
        )
    init = render_protocol_init(config.revisions)
    files.append(OutputFile(config.package_dir / "protocol" / "__init__.py", init))
    return files


def unavailable_revisions(config: Config) -> list[Diagnostic]:
    """One error per targeted revision whose schema cannot be had, all at once, each
    pointing at where the project chose its revisions."""
    problems = []
    for revision in config.revisions:
        try:
            specs.load(revision)
        except specs.SpecError as exc:
            if config.revisions_listed:
                where = "/tool/mcp-codegen/revisions"
                hint = "or leave it out of `revisions` here"
            else:
                where = "/tool/mcp-codegen"
                hint = (
                    "or build without it: the default revisions are targeted because this "
                    "table has no `revisions` key; add one listing those you need"
                )
            problems.append(error(str(config.pyproject), where, f"{exc} {hint.capitalize()}."))
    return problems


def plan(root: Path, progress: Progress = quiet, *, allow_outside: bool = False) -> Plan:
    config = load_config(root, allow_outside=allow_outside)
    links = package_link_problems(config.package_dir, str(config.pyproject))
    if links:
        raise BuildError(links)
    unavailable = unavailable_revisions(config)
    if unavailable:
        raise BuildError(unavailable)
    every_source, problems = checked_sources(config)
    sources = of_kinds(every_source, "tool")
    prompt_sources = of_kinds(every_source, "prompt")
    resource_sources = of_kinds(every_source, "resource", "resource template")
    problems += unkept_notification_keys(
        config, has_prompts=bool(prompt_sources), has_resources=bool(resource_sources)
    )
    if has_errors(problems):
        raise BuildError(problems)
    progress(f"compiling {len(sources)} tools for protocol revisions {', '.join(config.revisions)}")
    tools, compile_problems = compile_tools(sources, caches.folder("types"))
    problems.extend(compile_problems)
    if has_errors(problems):
        raise BuildError(problems)
    prompts = compile_prompts(prompt_sources, tools)
    functions, types = taken_names(tools, prompts)
    resources = compile_resources(resource_sources, config.root, functions, types)
    completers = compile_completers(prompts, resources, functions)
    inputs = input_digests(config)
    provenance = {k: v for k, v in inputs.items() if k != "mcp-codegen"}
    previous = read_manifest(config.package_dir)
    rendered = render_package(
        config,
        tools,
        provenance,
        partial(previous.reusable, config.package_dir) if previous else no_reuse,
        prompts,
        resources,
        completers,
    )
    files = rendered.files
    if config.protocol_models:
        files += protocol_model_files(config, progress)
    handler_spec = handler_module_spec(config, tools, prompts, resources, completers)
    shown = tool_label(config.root, config.package_dir / HANDLERS_MODULE)
    handlers, merge_warnings = handlers_file(config.package_dir, handler_spec, shown, previous)
    warnings = [d for d in problems if d.level is Level.WARNING]
    warnings += [warning(shown, "", message) for message in merge_warnings]
    outputs = {
        f.path.relative_to(config.package_dir).as_posix(): sha256_text(f.text) for f in files
    }
    manifest = Manifest(
        inputs=inputs,
        outputs=outputs,
        handlers_sha256=sha256_text(handlers.text),
        handlers=spec_to_json(handler_spec),
        handler_warnings=tuple(merge_warnings),
        inventory={"tools": len(tools), "prompts": len(prompts), "resources": len(resources)},
        unformatted=rendered.unformatted,
    )
    stale = sorted(
        config.package_dir / relative
        for relative in (previous.outputs if previous else {})
        if relative not in outputs and carries_header(config.package_dir / relative)
    )
    files.append(handlers)
    files.append(OutputFile(config.package_dir / MANIFEST_NAME, manifest.to_text()))
    files = sorted(files, key=lambda f: f.path)
    return Plan(config, files, stale, warnings, len(tools), len(prompts), len(resources))
