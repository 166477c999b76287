"""`mcp-codegen breaking`: its arguments, its run and its exit code (the comparison itself
is mcp_schemagen.contract)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp_schemagen.cli_options import allow_outside_argument
from mcp_schemagen.load.config import load_config
from mcp_schemagen.load.project_root import find_project

EXIT_OK, EXIT_FAILING, EXIT_INVALID = 0, 1, 2


def command_breaking(arguments: argparse.Namespace) -> int:
    from mcp_schemagen.contract.git import RevisionError
    from mcp_schemagen.contract.report import as_json, as_text
    from mcp_schemagen.contract.run import breaking

    root = find_project(Path(arguments.dir))
    config = load_config(root, allow_outside=arguments.allow_outside_project)
    try:
        outcome = breaking(config, arguments.against)
    except RevisionError as failure:
        print(f"mcp-codegen: error: {failure}", file=sys.stderr)
        return EXIT_INVALID
    if arguments.format == "json":
        sys.stdout.write(as_json(outcome))
    else:
        lines, notes = as_text(outcome)
        sys.stdout.write(lines)
        if not arguments.quiet or outcome.failing:
            sys.stderr.write(notes)
    return EXIT_FAILING if outcome.failing else EXIT_OK


def add_breaking_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    breaking = commands.add_parser(
        "breaking",
        parents=[common],
        help="say which schema changes break clients (for pre-commit and CI)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Compare the project's tool, prompt and resource files with those at a git\n"
        "revision (read through git; nothing is checked out) or with a saved tools/list,\n"
        "prompts/list, resources/list or resources/templates/list result of a deployed\n"
        "server, and print one line per change:\n\n"
        "    FILE#/POINTER: CATEGORY: what changed\n\n"
        "categories:\n"
        "  breaking (callers)           a call that worked is refused: tool, prompt or\n"
        "                               resource removed, a uri or uriTemplate changed, new\n"
        "                               required argument, accepted values narrowed, a\n"
        "                               property added where any key was accepted\n"
        "  breaking (result consumers)  results no longer match what consumers relied on\n"
        "  safety                       an annotation hint loosened, required scopes changed\n"
        "  compatible                   widened inputs, new optional arguments, new tools,\n"
        "                               prompts and resources\n"
        "  cache                        the bytes of tools/list, prompts/list, resources/list\n"
        "                               or resources/templates/list changed for a revision\n"
        "                               the project speaks (prompt caches go stale)\n"
        "  unknown                      cannot be decided (a changed pattern, not, if, ...)\n\n"
        "Exit 1 when a failing category is present: breaking and safety, or the list in\n"
        "`breaking-fail` of [tool.mcp-codegen]; 2 on invalid input. With\n"
        "`breaking-only-declared-properties = true` there, a property added to an open\n"
        "object is compatible (callers send only declared ones). Accept a deliberate break\n"
        "once, in breaking-acknowledged.yaml beside pyproject.toml:\n\n"
        "    - pointer: tools/x.json#/inputSchema/required\n"
        "      reason: why it is accepted\n\n"
        "example: mcp-codegen breaking --against origin/main",
    )
    breaking.add_argument(
        "--against",
        required=True,
        metavar="REF|FILE",
        help="a git revision (HEAD, main, origin/main, a tag or commit), or a JSON file "
        "holding a saved tools/list, prompts/list, resources/list or resources/templates/list "
        "result; a file of that name wins",
    )
    breaking.add_argument(
        "--format", choices=("text", "json"), default="text", help="output (default: text)"
    )
    breaking.add_argument(
        "dir",
        nargs="?",
        default=".",
        help="project folder holding pyproject.toml, or a folder inside it (default: .)",
    )
    allow_outside_argument(breaking)
    breaking.set_defaults(run=command_breaking)
