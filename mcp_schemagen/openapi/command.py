"""`mcp-codegen import openapi SPEC`: its arguments, and the planned files written (all or
nothing) with what was imported, skipped and removed said on stderr."""

from __future__ import annotations

import argparse
import os
import sys
from fnmatch import fnmatchcase
from pathlib import Path

from mcp_schemagen.diagnostics import BuildError, error, sort_for_report
from mcp_schemagen.load.config import Config, load_config
from mcp_schemagen.load.project_root import find_project
from mcp_schemagen.openapi import SCHEMA_BUDGET
from mcp_schemagen.write.disk import remove_stale, write_all

CURATION_FILE = "openapi-curation.yaml"
# What the generated calls import (PACKAGE/_http.py); the MCP SDK depends on it as well.
HTTP_REQUIREMENT = "httpx2>=2.16,<3"


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()
    except ValueError:  # another drive (Windows)
        return path.resolve().as_posix()


def _out_dir(config: Config, asked: str | None) -> Path:
    """Where tool files go: --out, else the folder of the first `tools` glob; either way a
    glob of the project must pick up NAME.json there, or the build would never see them."""
    folder = (
        config.root / asked
        if asked
        else config.root / Path(config.tool_globs[0]).parent
        if config.tool_globs
        else config.root / "tools"
    )
    probe = (folder / "probe.json").resolve().relative_to(config.root.resolve()).as_posix()
    if not any(fnmatchcase(probe, glob) for glob in config.tool_globs):
        raise BuildError(
            [
                error(
                    str(config.pyproject),
                    "/tool/mcp-codegen/tools",
                    f"no glob here picks up the imported {_shown(folder)}/*.json; add "
                    f'"{Path(probe).parent.as_posix()}/*.json" to `tools` or pick --out',
                )
            ]
        )
    return folder


def _kilobytes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of KB of at least 1")
    return value


def command_import_openapi(arguments: argparse.Namespace) -> int:
    # Imported here, not with the parser: every other command (a build) would load the
    # OpenAPI reader, YAML and the reference resolver for nothing (bench/bench_build.py).
    from mcp_schemagen.openapi.importer import plan_import
    from mcp_schemagen.openapi.operations import Selection

    root = find_project(Path(arguments.dir))
    config = load_config(root)
    spec = Path(arguments.spec)
    curation = Path(arguments.curation) if arguments.curation else root / CURATION_FILE
    plan = plan_import(
        spec,
        # Relative to the project, as every path of a tool file: the same bytes from any cwd.
        _relative(spec, root),
        _out_dir(config, arguments.out),
        selection=Selection(
            tuple(arguments.tags or ()),
            tuple(arguments.paths or ()),
            tuple(arguments.operations or ()),
        ),
        curation_path=curation,
        curation_label=_relative(curation, root),
        api=arguments.api,
        schema_budget=arguments.schema_budget * 1024,
    )
    written = write_all(plan.files)
    remove_stale(plan.stale)
    if not arguments.quiet:
        for diagnostic in sort_for_report(plan.warnings + plan.skipped):
            print(diagnostic, file=sys.stderr)
        for path in plan.stale:
            print(
                f"mcp-codegen: removed {_shown(path)}: no longer in the document or selection",
                file=sys.stderr,
            )
    unchanged = len(plan.files) - len(written)
    print(
        f"mcp-codegen: imported {len(plan.tools)} of {plan.operation_count} operations of "
        f"{_shown(spec)} as API {plan.api!r} ({len(written)} written, {unchanged} unchanged, "
        f"{len(plan.stale)} removed, {len(plan.skipped)} not imported)",
        file=sys.stderr,
    )
    if plan.cut_count:
        print(
            f"mcp-codegen: the schemas of {plan.cut_count} of the {len(plan.tools)} tools are larger "
            f"than the schema budget ({arguments.schema_budget} KB each): their $defs farthest "
            "from the root were cut to accept anything; --schema-budget KB keeps more",
            file=sys.stderr,
        )
    if not arguments.quiet and plan.tools:
        pyproject = config.pyproject.read_text(encoding="utf-8")
        if "httpx2" not in pyproject:
            print(
                f'mcp-codegen: the generated calls need httpx2: add "{HTTP_REQUIREMENT}" to '
                "[project] dependencies",
                file=sys.stderr,
            )
        upper = plan.api.upper()
        print(
            f"mcp-codegen: next: mcp-codegen build; the server calls the API at "
            f"{upper}_BASE_URL if set, else the document's server",
            file=sys.stderr,
        )
    return 0


def import_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    importing = commands.add_parser(
        "import",
        help="write tool files from an API description (OpenAPI)",
        description="Write tool files from an API description; the build then generates "
        "each tool's HTTP call.",
    )
    kinds = importing.add_subparsers(dest="kind", required=True, metavar="KIND")
    openapi = kinds.add_parser(
        "openapi",
        parents=[common],
        help="one tool file per operation of an OpenAPI 3.0 or 3.1 document",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write one tool file per selected operation of SPEC (an OpenAPI 3.0 or 3.1\n"
        "document, JSON or YAML; Swagger 2.0 is refused: convert it first) into the\n"
        "project's tools folder. Each file records its operation under\n"
        "x-mcp-codegen-http; `mcp-codegen build` then generates PACKAGE/_upstream.py\n"
        "with one typed async httpx call per operation, and new handler stubs that\n"
        "return it. Names come from operationId (else method and path), made valid,\n"
        "unique and at most 64 characters.\n\n"
        "The curation file (default: openapi-curation.yaml beside pyproject.toml) is\n"
        "read, never written, so re-importing a changed document keeps it:\n\n"
        "    select: {tags: [pets]}\n"
        "    operations:\n"
        "      findPets: {name: list_pets, description: ..., fixed: {limit: 20}}\n"
        "      deletePet: {skip: true}\n\n"
        "Operations that cannot be imported (multipart bodies, callbacks, network\n"
        "$refs) are skipped with FILE#/POINTER and what to do; the rest are imported.\n"
        "Tool files an earlier import of the same API wrote and the document no longer\n"
        "has are removed; files of your own are never touched.",
    )
    openapi.add_argument("spec", metavar="SPEC", help="the OpenAPI document (a file)")
    openapi.add_argument(
        "--tags", nargs="+", metavar="TAG", help="operations with any of these tags"
    )
    openapi.add_argument(
        "--paths", nargs="+", metavar="GLOB", help="operations whose path matches (e.g. '/pets/*')"
    )
    openapi.add_argument(
        "--operations",
        nargs="+",
        metavar="ID",
        help="operations by operationId or 'METHOD /path'",
    )
    openapi.add_argument(
        "--curation", metavar="FILE", help=f"curation file (default: {CURATION_FILE})"
    )
    openapi.add_argument(
        "--api",
        metavar="NAME",
        help="short name of the API (env var prefix; default: from info.title)",
    )
    openapi.add_argument(
        "--out", metavar="DIR", help="folder of the tool files (default: the tools glob's)"
    )
    openapi.add_argument(
        "--schema-budget",
        type=_kilobytes,
        default=SCHEMA_BUDGET // 1024,
        metavar="KB",
        help="at most this many KB of JSON per inputSchema or outputSchema with its $defs; "
        f"the $defs farthest from the root are cut beyond it (default: {SCHEMA_BUDGET // 1024})",
    )
    openapi.add_argument(
        "--dir", default=".", help="project folder holding pyproject.toml (default: .)"
    )
    openapi.set_defaults(run=command_import_openapi)
