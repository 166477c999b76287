"""load -> check -> compile -> render -> merge: from a project folder to the files that
should be on disk, which mcp_schemagen.write puts there (or diffs). Nothing here writes
to the project; the user cache (mcp_schemagen.caches) is filled on the way."""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mcp_schemagen import caches
from mcp_schemagen.check.notification_checks import unkept_notification_keys
from mcp_schemagen.check.omissions import omission_warnings
from mcp_schemagen.check.prompt_checks import (
    check_prompt,
    duplicate_prompt_names,
    prompt_omission_warnings,
)
from mcp_schemagen.check.resource_checks import (
    check_resource,
    duplicate_resources,
    resource_omission_warnings,
)
from mcp_schemagen.check.tool_checks import check_tool
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
    pointer_join,
    warning,
)
from mcp_schemagen.handlers.file import handlers_file, spec_to_json
from mcp_schemagen.handlers.signatures import handler_module_spec
from mcp_schemagen.load import specs
from mcp_schemagen.load.config import Config, load_config
from mcp_schemagen.load.containment import package_link_problems
from mcp_schemagen.load.prompts import PromptSource, load_prompts
from mcp_schemagen.load.published import publish
from mcp_schemagen.load.resources import ResourceSource, load_resources
from mcp_schemagen.load.tools import ToolSource, load_tools, tool_label
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


def _duplicate_names(sources: list[ToolSource]) -> list[Diagnostic]:
    by_name: dict[str, list[ToolSource]] = defaultdict(list)
    for source in sources:
        if isinstance(source.definition.get("name"), str):
            by_name[source.definition["name"]].append(source)
    problems = []
    for name, same in by_name.items():
        for later in same[1:]:
            first = same[0]
            problems.append(
                error(
                    later.file,
                    pointer_join(later.pointer, "name"),
                    f"tool name {name!r} is already used at {first.file}#{first.pointer}; "
                    "names must be unique (case-sensitive)",
                )
            )
    return problems


def check_sources(config: Config) -> tuple[list[ToolSource], list[Diagnostic]]:
    sources, problems, files = load_tools(
        config.root, config.tool_globs, allow_outside=config.allow_outside
    )
    if not files and not problems:  # matches leading outside are reported already
        globs = ", ".join(config.tool_globs)
        problems.append(
            error(
                str(config.pyproject),
                "/tool/mcp-codegen/tools",
                f"no tool files match {globs}; add one or fix the globs",
            )
        )
    # Each tool as each revision publishes it, worked out once for both kinds of check.
    published = [publish(source.definition, config.revisions) for source in sources]
    accepted = frozenset(config.accept_keywords)
    for source, forms in zip(sources, published, strict=True):
        problems.extend(check_tool(source, forms, accepted))
    problems.extend(omission_warnings(zip(sources, published, strict=True), config.accept_omitted))
    problems.extend(_duplicate_names(sources))
    return sources, problems


def check_prompt_sources(config: Config) -> tuple[list[PromptSource], list[Diagnostic]]:
    """The project's prompts (none when no file matches) and their problems."""
    sources, problems = load_prompts(
        config.root, config.prompt_globs, allow_outside=config.allow_outside
    )
    accepted = frozenset(config.accept_keywords)
    for source in sources:
        problems.extend(check_prompt(source, config.revisions, accepted))
    problems.extend(duplicate_prompt_names(sources))
    if not has_errors(problems):
        problems.extend(prompt_omission_warnings(sources, config.revisions, config.accept_omitted))
    return sources, problems


def check_resource_sources(config: Config) -> tuple[list[ResourceSource], list[Diagnostic]]:
    """The project's resources and templates (none when no file matches), their problems."""
    sources, problems = load_resources(
        config.root, config.resource_globs, allow_outside=config.allow_outside
    )
    accepted = frozenset(config.accept_keywords)
    for source in sources:
        problems.extend(
            check_resource(source, config.revisions, config.root, accepted, config.package_dir)
        )
    problems.extend(duplicate_resources(sources))
    if not has_errors(problems):
        problems.extend(
            resource_omission_warnings(sources, config.revisions, config.accept_omitted)
        )
    return sources, problems


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
    """The targeted revisions whose schema cannot be had, all at once, pointing at where
    the project chose its revisions: those no source has in one error (same cause, same
    cure), any other failure (a corrupted file) one error each."""
    failures: list[specs.SpecError] = []
    missing: list[specs.SpecUnavailable] = []
    for revision in config.revisions:
        try:
            specs.load(revision)
        except specs.SpecUnavailable as exc:
            missing.append(exc)
        except specs.SpecError as exc:
            failures.append(exc)
    if missing:
        failures.insert(0, specs.SpecError(specs.unavailable_message(missing)))
    it = "them" if len(missing) > 1 else "it"
    if config.revisions_listed:
        where = "/tool/mcp-codegen/revisions"
        hint = f"or leave {it} out of `revisions` here"
    else:
        where = "/tool/mcp-codegen"
        hint = (
            f"or build without {it}: the default revisions are targeted because this "
            "table has no `revisions` key; add one listing those you need"
        )
    return [error(str(config.pyproject), where, f"{exc} {hint.capitalize()}.") for exc in failures]


def plan(root: Path, progress: Progress = quiet, *, allow_outside: bool = False) -> Plan:
    config = load_config(root, allow_outside=allow_outside)
    links = package_link_problems(config.package_dir, str(config.pyproject))
    if links:
        raise BuildError(links)
    unavailable = unavailable_revisions(config)
    if unavailable:
        raise BuildError(unavailable)
    sources, problems = check_sources(config)
    prompt_sources, prompt_problems = check_prompt_sources(config)
    problems += prompt_problems
    resource_sources, resource_problems = check_resource_sources(config)
    problems += resource_problems
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
