"""Command line: argument parsing, output and exit codes only.

Exit codes: 0 success (or fresh), 1 `check` found stale generated code, 2 invalid input,
3 the handler module cannot be updated without touching user code.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from mcp_schemagen import __version__
from mcp_schemagen.cli_breaking import add_breaking_command
from mcp_schemagen.cli_options import allow_outside_argument
from mcp_schemagen.diagnostics import BuildError, Diagnostic, Level, has_errors, sort_for_report
from mcp_schemagen.freshness import fresh_record, is_fresh, proven_stale
from mcp_schemagen.load import specs
from mcp_schemagen.load.config import load_config
from mcp_schemagen.load.project_root import find_project
from mcp_schemagen.openapi.command import import_parser
from mcp_schemagen.program import started_as_program
from mcp_schemagen.record.manifest import MANIFEST_NAME

EXIT_OK, EXIT_STALE, EXIT_INVALID = 0, 1, 2  # 3 (handler conflict) comes with its BuildError


def _report(diagnostics: Sequence[Diagnostic]) -> None:
    for diagnostic in sort_for_report(diagnostics):
        print(diagnostic, file=sys.stderr)


def _warn(arguments: argparse.Namespace, warnings: Sequence[Diagnostic]) -> None:
    if not arguments.quiet:
        _report(warnings)


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _inventory(tools: int, prompts: int, resources: int = 0, skills: int = 0) -> str:
    """What a package serves, as the build's summary says it: "3 tools, 1 prompt, 2
    resources, 1 skill" (a kind the project has none of is left out, tools aside)."""
    said = f"{tools} tool{'s' * (tools != 1)}"
    said += f", {prompts} prompt{'s' * (prompts != 1)}" if prompts else ""
    said += f", {resources} resource{'s' * (resources != 1)}" if resources else ""
    return said + (f", {skills} skill{'s' * (skills != 1)}" if skills else "")


def command_build(arguments: argparse.Namespace) -> int:
    root = find_project(Path(arguments.dir))
    allow_outside = arguments.allow_outside_project
    record = fresh_record(root, allow_outside=allow_outside)
    if record is not None:  # the build record proves there is nothing to write
        kinds = [h.get("kind", "tool") for h in record.handlers["handlers"]]
        counts = record.inventory or {
            "tools": kinds.count("tool"),
            "prompts": kinds.count("prompt"),
        }
        inventory = _inventory(
            counts.get("tools", 0),
            counts.get("prompts", 0),
            counts.get("resources", 0),
            counts.get("skills", 0),
        )
        package = load_config(root, allow_outside=allow_outside).package
        print(f"{package}: up to date ({inventory})")
        return EXIT_OK
    # The generator proper is imported only now: a fresh project never pays for it.
    from mcp_schemagen.pipeline import plan, quiet, stderr_progress
    from mcp_schemagen.write.disk import remove_stale, write_all

    progress = quiet if arguments.quiet else stderr_progress
    result = plan(root, progress, allow_outside=arguments.allow_outside_project)
    _warn(arguments, result.warnings)
    written = write_all(result.files)
    remove_stale(result.stale)
    for output in written:
        print(f"wrote {_shown(output.path)}")
    for stale in result.stale:
        print(f"removed {_shown(stale)} (no longer generated)")
    inventory = _inventory(
        result.tool_count, result.prompt_count, result.resource_count, result.skill_count
    )
    if not written and not result.stale:
        print(f"{result.config.package}: up to date ({inventory})")
    else:
        print(
            f"{result.config.package}: {inventory}, "
            "protocol revisions "
            f"{', '.join(result.config.revisions)}, in {_shown(result.config.package_dir)}"
        )
    return EXIT_OK


def command_check(arguments: argparse.Namespace) -> int:
    root = find_project(Path(arguments.dir))
    if is_fresh(root, allow_outside=arguments.allow_outside_project):
        print("generated code is up to date")
        return EXIT_OK
    if not arguments.diff:
        code = _stale_from_record(arguments, root)
        if code is not None:
            return code
    # The generator proper is imported only now: a fresh project never pays for it.
    from mcp_schemagen.pipeline import plan, quiet
    from mcp_schemagen.write.disk import changed_files, unified_diff

    result = plan(root, quiet, allow_outside=arguments.allow_outside_project)
    _warn(arguments, result.warnings)
    changed = [f for f in changed_files(result.files) if f.path.name != MANIFEST_NAME]
    if not changed and not result.stale:
        print("generated code is up to date")
        return EXIT_OK
    sys.stdout.write(unified_diff(changed, root))
    for stale in result.stale:
        print(f"--- a/{_shown(stale)}\n+++ /dev/null\n(no longer generated; build removes it)")
    _tell_fix(root)
    return EXIT_STALE


def _stale_from_record(arguments: argparse.Namespace, root: Path) -> int | None:
    """The pre-commit case: the build record proves the package stale (a tool file
    changed, say), so `check` says which inputs and fails at once, without generating;
    the inputs are still checked, so invalid ones exit 2 as a build would. None when the
    record proves nothing: then the pipeline decides."""
    config = load_config(root, allow_outside=arguments.allow_outside_project)
    if not (reasons := proven_stale(config)):
        return None
    from mcp_schemagen.kind_sources import checked_sources

    _, problems = checked_sources(config)
    if has_errors(problems):
        raise BuildError(problems)
    _warn(arguments, [p for p in problems if p.level is Level.WARNING])
    for reason in reasons:
        print(reason)
    _tell_fix(root, diff=True)
    return EXIT_STALE


def _tell_fix(root: Path, *, diff: bool = False) -> None:
    shown = shlex.quote(str(root))
    see = f"\n(`mcp-codegen check --diff {shown}` shows the changes)" if diff else ""
    print(
        f"\ngenerated code is stale. Fix with:\n    mcp-codegen build {shown}{see}", file=sys.stderr
    )


def command_new(arguments: argparse.Namespace) -> int:
    from mcp_schemagen.install_source import current_source
    from mcp_schemagen.scaffold import inspector_commands, scaffold, setup_commands

    source = current_source()
    target = scaffold(
        arguments.name, Path(arguments.dir) if arguments.dir else None, arguments.revision, source
    )
    shown = shlex.quote(_shown(target))
    print(f"created {shown}")
    if arguments.quiet:
        return EXIT_OK
    steps = [f"cd {shown}", *setup_commands(source)]
    steps.append("pytest                       # its tests, through the official MCP client")
    call, page = inspector_commands(arguments.name, "greet", "name=Ada")
    print("\nSet it up (in a fresh shell; README.md says more):")
    print("".join(f"    {step}\n" for step in steps), end="")
    print("\nTalk to it, with the MCP Inspector (Node.js):")
    print(f"    {call}\n    {page}                # interactive")
    print(
        "\nUse it from Claude Code, Claude Desktop or Cursor: mcp-codegen's"
        " docs/how-to/use-from-a-host.md"
    )
    print("\nChange it: edit tools/*.json, run `mcp-codegen build`, fill in the new handler in")
    print(f"{arguments.name}/handlers.py, run `pytest`.")
    return EXIT_OK


def command_client(arguments: argparse.Namespace) -> int:
    from mcp_schemagen.atomic import replace_all
    from mcp_schemagen.render.client_package import package_name, standalone_client

    files = [Path(name) for name in arguments.listing]
    package = arguments.package or package_name(files[0])
    out = Path(arguments.out)
    outputs, warnings = standalone_client(files, package, out)
    _warn(arguments, warnings)
    replace_all([f.path for f in outputs], [f.text.encode("utf-8") for f in outputs])
    print(f"wrote {shlex.quote(_shown(out / package))} ({len(outputs)} files)")
    if not arguments.quiet:
        print("\nIt needs the official MCP SDK: pip install 'mcp>=2.3,<2.4' jsonschema-rs")
        print(f"    async with {package}.client.connect_stdio([COMMAND, ...]) as client: ...")
    return EXIT_OK


def command_specs_list(arguments: argparse.Namespace) -> int:
    for revision in specs.pinned_revisions():
        if arguments.quiet:
            print(revision.name)
            continue
        print(f"{revision.name}  sha256={revision.sha256}  {specs.availability(revision)}")
        print(f"            upstream {revision.upstream_url}")
    return EXIT_OK


def command_specs_pull(arguments: argparse.Namespace) -> int:
    names = arguments.revisions or list(specs.revision_names())
    revisions = [specs.get_revision(name) for name in names]  # every name checked first
    failed = []
    missing: list[specs.SpecUnavailable] = []
    for revision in revisions:
        # Each revision on its own: one that cannot be had does not stop the others.
        try:
            _, source = specs.fetch(revision)
        except specs.SpecUnavailable as failure:
            missing.append(failure)  # explained once for all, below
            failed.append(revision.name)
            continue
        except specs.SpecError as failure:
            print(f"mcp-codegen: error: {failure}", file=sys.stderr)
            failed.append(revision.name)
            continue
        if not arguments.quiet:
            print(
                f"{revision.name}: verified sha256 {revision.sha256} from {source}, cached at {specs.cached_path(revision)}"
            )
    if missing:
        print(f"mcp-codegen: error: {specs.unavailable_message(missing)}", file=sys.stderr)
    if failed:
        print(
            f"mcp-codegen: {len(failed)} of {len(revisions)} revision(s) not available: "
            f"{', '.join(failed)}",
            file=sys.stderr,
        )
        return EXIT_INVALID
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-codegen",
        description="Compile MCP tool, prompt and resource schema files and the official "
        "protocol schemas into a typed Python MCP server package (and its typed client). "
        "Configure it in [tool.mcp-codegen] of pyproject.toml.",
        epilog="Exit codes: 0 ok, 1 stale (check) or a failing change (breaking), 2 invalid "
        "input, 3 handler module conflict.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-codegen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # Every command takes -q: errors and results only (no progress, warnings or guidance).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only errors and results: no progress, warnings or next steps",
    )

    build = commands.add_parser(
        "build",
        parents=[common],
        help="generate the server package of a project",
        description="Check the tool files of the project in DIR and (re)generate its package: "
        "types, validators, dispatch table, runtime, handler stubs, and protocol models when "
        "`protocol-models = true`. "
        "Only files whose content changes are written; handler bodies are never overwritten.",
    )
    build.add_argument(
        "dir",
        nargs="?",
        default=".",
        help="project folder holding pyproject.toml, or a folder inside it (default: .)",
    )
    allow_outside_argument(build)
    build.set_defaults(run=command_build)

    check = commands.add_parser(
        "check",
        parents=[common],
        help="fail when generated code is stale (for pre-commit and CI)",
        description="Run the build without writing anything. Exit 0 when the generated package "
        "is current, 1 with what changed (the unified diff with --diff) and the fix command when "
        "it is not, 2 on invalid input.",
    )
    check.add_argument(
        "dir",
        nargs="?",
        default=".",
        help="project folder holding pyproject.toml, or a folder inside it (default: .)",
    )
    check.add_argument(
        "--diff",
        action="store_true",
        help="when stale, print the unified diff a build would apply (runs the whole pipeline;"
        " without it, a changed input is reported at once from the build record)",
    )
    allow_outside_argument(check)
    check.set_defaults(run=command_check)

    new = commands.add_parser(
        "new",
        parents=[common],
        help="create a new server project",
        description="Create a project NAME that builds, tests and serves right away: "
        "pyproject.toml with the configuration and dependencies, tools/ with example tools, "
        "the generated package with working example handlers, tests, a README and a "
        ".pre-commit-config.yaml using the mcp-codegen-check hook.",
    )
    new.add_argument("name", help="Python package name of the server (letters, digits, _)")
    new.add_argument("--dir", help="folder to create (default: ./NAME); must not exist or be empty")
    new.add_argument(
        "--revision",
        action="append",
        choices=specs.revision_names(),
        help="protocol revision to support; repeat for several "
        "(default: all but the opt-in pre-release 2024-10-07)",
    )
    new.set_defaults(run=command_new)

    client = commands.add_parser(
        "client",
        parents=[common],
        help="write a typed client package for any MCP server from its tool listing",
        description="Write a standalone typed client package (one method per tool, the same "
        "types and validators a generated server has) for a server whose tools are in "
        "LISTING: tool files or a saved tools/list result, JSON or YAML. Tools the build would "
        "refuse are left out with a warning.",
    )
    client.add_argument("listing", nargs="+", help="tool files or saved tools/list results")
    client.add_argument("--out", required=True, help="folder the package is written in")
    client.add_argument(
        "--package", help="import name of the package (default: the first file's name + _client)"
    )
    client.set_defaults(run=command_client)

    add_breaking_command(commands, common)
    import_parser(commands, common)

    spec_commands = commands.add_parser(
        "specs",
        help="list or download the pinned protocol schemas",
        description=f"Protocol schemas are pinned by sha256 and read from ${specs.MIRROR_ENV} "
        f"(a folder or URL laid out REV/schema.json), the user cache (${specs.CACHE_ENV} or "
        "the platform cache folder), or the upstream URL.",
    )
    spec_actions = spec_commands.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = spec_actions.add_parser(
        "list", parents=[common], help="show pinned revisions and where each is available"
    )
    listing.set_defaults(run=command_specs_list)
    pull = spec_actions.add_parser(
        "pull", parents=[common], help="download and verify revisions into the cache"
    )
    pull.add_argument(
        "revisions", nargs="*", metavar="REV", help="revisions to fetch (default: all)"
    )
    pull.set_defaults(run=command_specs_pull)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the program itself, not a caller in its own process (program.py)
        started_as_program()
    arguments = _parser().parse_args(argv)
    try:
        code: int = arguments.run(arguments)
    except BuildError as failure:
        _report(failure.diagnostics)
        errors = sum(1 for d in failure.diagnostics if d.level is Level.ERROR)
        # `check` and `breaking` never write: telling that it wrote nothing would say it twice
        written = "" if arguments.command in ("check", "breaking") else "; nothing was written"
        print(f"mcp-codegen: {errors} error(s){written}", file=sys.stderr)
        return failure.exit_code
    except specs.SpecError as failure:
        print(f"mcp-codegen: error: {failure}", file=sys.stderr)
        return EXIT_INVALID
    return code


if __name__ == "__main__":
    sys.exit(main())
