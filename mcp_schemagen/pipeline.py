"""load -> check -> compile -> (render | handlers | record), over one Project IR
(compile/project.py): from a project folder to the files that should be on disk, which
mcp_schemagen.write puts there (or diffs). Nothing here writes to the project; the user
cache (mcp_schemagen.caches) is filled on the way."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mcp_schemagen import caches
from mcp_schemagen.check.app_checks import check_apps
from mcp_schemagen.check.notification_checks import unkept_notification_keys
from mcp_schemagen.compile.compiler import type_jobs
from mcp_schemagen.compile.project import compile_project
from mcp_schemagen.compile.type_prefill import Prefill
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
from mcp_schemagen.record.build_record import build_record, stale_files
from mcp_schemagen.record.fingerprint import input_digests
from mcp_schemagen.record.manifest import HANDLERS_MODULE, MANIFEST_NAME, Manifest, read_manifest
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.package import no_reuse, render_package
from mcp_schemagen.render.provenance import sha256_text
from mcp_schemagen.render.view_types import view_type_files
from mcp_schemagen.source import Source

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
    skill_count: int = 0  # skills/ folders (the Skills extension)


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


def _refuse(problems: list[Diagnostic]) -> None:
    if has_errors(problems):
        raise BuildError(problems)


def checked(
    config: Config, on_read: Callable[[str, list[Source]], object] | None = None
) -> tuple[tuple[Source, ...], list[Diagnostic]]:
    """load and check: every definition of every kind, and the warnings about them (any
    error is raised). ``on_read``: see kind_sources.checked_sources."""
    _refuse(package_link_problems(config.package_dir, str(config.pyproject)))
    _refuse(unavailable_revisions(config))
    sources, problems = checked_sources(config, on_read)
    kinds = {source.kind for source in sources}
    problems += unkept_notification_keys(
        config,
        has_prompts="prompt" in kinds,
        has_resources=bool(kinds & {"resource", "resource template"}),
    )
    problems += check_apps(config, sources)  # MCP Apps: tools and their views, linked
    _refuse(problems)
    return sources, problems


def early_types(read: list[Source]) -> Prefill:
    """Workers making the types of the tools just read, checked or not: root names from
    definitions the checks may yet refuse only cost a cache entry no one reads."""
    try:
        jobs = type_jobs(of_kinds(read, "tool"))
    except Exception:  # unchecked input; the checks say what is wrong with it
        jobs = []
    return Prefill(jobs, caches.folder("types"))


def plan(root: Path, progress: Progress = quiet, *, allow_outside: bool = False) -> Plan:
    """load -> check -> compile -> (render | handlers | record), over one Project."""
    config = load_config(root, allow_outside=allow_outside)
    with ExitStack() as workers:
        started: list[Prefill] = []

        def start_types(kind: str, read: list[Source]) -> None:
            # The tool types the cache lacks, made by workers while the checks run.
            if kind == "tool":
                started.append(workers.enter_context(early_types(read)))

        sources, problems = checked(config, start_types)
        previous = read_manifest(config.package_dir)
        if any(p.workers for p in started) and _needs_full_merge(config.package_dir, previous):
            # A schema changed, so a handler's signature most likely did: the merge's
            # libcst loads now, while the workers run, rather than after them.
            importlib.import_module("mcp_schemagen.handlers.merge")
        inputs = input_digests(config)  # also while they run: it needs no types
        for running in started:
            running.wait()
    count = len(of_kinds(sources, "tool"))
    progress(f"compiling {count} tools for protocol revisions {', '.join(config.revisions)}")
    project = compile_project(
        config,
        sources,
        inputs,
        problems,
        caches.folder("types"),
        types_started=bool(started),
    )
    package_dir = config.package_dir
    rendered = render_package(
        project, partial(previous.reusable, package_dir) if previous else no_reuse
    )
    view_types, foreign = view_type_files(project)  # beside each MCP Apps view's HTML
    _refuse(foreign)
    files = rendered.files + view_types
    if config.protocol_models:
        files += protocol_model_files(config, progress)
    handler_spec = handler_module_spec(project)
    shown = tool_label(config.root, package_dir / HANDLERS_MODULE)
    handlers, merge_warnings = handlers_file(package_dir, handler_spec, shown, previous)
    record = build_record(
        project, files, handlers, spec_to_json(handler_spec), merge_warnings, rendered.unformatted
    )
    warnings = [d for d in project.warnings if d.level is Level.WARNING]
    warnings += [warning(shown, "", message) for message in merge_warnings]
    files = [*files, handlers, OutputFile(package_dir / MANIFEST_NAME, record.to_text())]
    stale = stale_files(package_dir, previous, record, config.root)
    inventory = project.inventory
    return Plan(
        config,
        sorted(files, key=lambda f: f.path),
        stale,
        warnings,
        inventory["tools"],
        inventory["prompts"],
        inventory["resources"],
        inventory.get("skills", 0),
    )


def _needs_full_merge(package_dir: Path, previous: Manifest | None) -> bool:
    """Whether the handler module exists and was changed since the previous build left
    it: only then can a signature change need libcst (else handlers.splice does it)."""
    try:
        text = (package_dir / HANDLERS_MODULE).read_bytes().decode("utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return False
    return previous is None or previous.handlers_sha256 != sha256_text(text)
