"""MkDocs hook: the reference pages that are written from the code at every build, so they
cannot go stale (mkdocs.yml, `hooks:`).

- reference/commands.md: every `mcp-codegen` command and option, from the argument parser
  of mcp_schemagen/cli.py, and every option of a generated server's `python -m PACKAGE`,
  from the parser of mcp_schemagen/runtime/main.py.
- reference/configuration.md: every key of `[tool.mcp-codegen]`, from the configuration's
  one description (mcp_schemagen.load.config_keys).
"""

from __future__ import annotations

import argparse
import inspect
import typing
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _cell(text: str) -> str:
    """Text for one cell of a Markdown table: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    return _cell(action.help % {"default": action.default, "prog": parser.prog})


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
            continue
        if action.option_strings:
            names = ", ".join(f"`{name}`" for name in action.option_strings)
            if action.nargs != 0:
                metavar = action.metavar or action.dest.upper()
                names += f" `{metavar}`"
        else:
            names = f"`{action.metavar or action.dest.upper()}`"
        default = action.default
        shown = (
            ""
            if default in (None, False, argparse.SUPPRESS) or action.nargs == 0
            else f"`{default}`"
        )
        choices = ""
        if action.choices and not isinstance(action.choices, dict):
            choices = " One of: " + ", ".join(f"`{c}`" for c in action.choices) + "."
        rows.append(f"| {names} | {_help(parser, action)}{choices} | {shown} |")
    return rows


def _subcommands(
    parser: argparse.ArgumentParser,
) -> list[tuple[str, argparse.ArgumentParser]]:
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += list(action.choices.items())
    return found


def parser_markdown(parser: argparse.ArgumentParser, level: int = 2) -> str:
    """One section per command: usage, description, a table of its arguments and options,
    then its subcommands one level down."""
    lines = [f"{'#' * level} `{parser.prog}`", ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    if parser.description:
        lines += [" ".join(parser.description.split()), ""]
    rows = _option_rows(parser)
    if rows:
        lines += ["| argument or option | meaning | default |", "|---|---|---|", *rows, ""]
    if parser.epilog:
        lines += ["```text", parser.epilog.strip(), "```", ""]
    for _, sub in _subcommands(parser):
        lines.append(parser_markdown(sub, level + 1))
    return "\n".join(lines)


def commands_page() -> str:
    from mcp_schemagen.cli import _parser
    from mcp_schemagen.runtime.main import parser as server_parser
    from mcp_schemagen.runtime.tasks.engine_worker import parser as worker_parser

    return "\n".join(
        [
            "# Commands and options",
            "",
            "Written at every build of this site from the argument parsers themselves "
            "(`mcp_schemagen/cli.py` and a generated server's `_runtime/main.py`), so it "
            "says what `--help` says; every command also takes `-h`/`--help`. Exit codes: [Exit codes](exit-codes.md); the "
            "environment: [Environment variables](environment.md).",
            "",
            parser_markdown(_parser()),
            "## A generated server: `python -m PACKAGE`",
            "",
            "Every generated package serves itself; `PACKAGE` is its import name.",
            "",
            parser_markdown(server_parser("PACKAGE"), level=3),
            "Task workers (`--task-engine taskiq`, the `tasks` extra): "
            "[Run tasks on their own machines](../how-to/tasks.md#run-tasks-on-their-own-machines).",
            "",
            parser_markdown(worker_parser("PACKAGE"), level=3),
        ]
    )


def configuration_keys_markdown() -> str:
    """The table of `[tool.mcp-codegen]` keys: key, type, default, meaning, from the
    configuration's one description (`mcp_schemagen.load.config_keys.CONFIG_KEYS`), the
    rows the loader itself reads by."""
    from mcp_schemagen.load.config_keys import config_reference_markdown

    return config_reference_markdown()


def configuration_page(template: str) -> str:
    return template.replace("{{ configuration_keys }}", configuration_keys_markdown())


def api_names() -> list[tuple[str, str]]:
    """(runtime module, name) of everything a generated package's `api.py` exports, read
    from its template, so a name added there is documented at the next build."""
    import ast

    from mcp_schemagen.package_data import data_dir

    source = (data_dir("templates") / "package" / "api.py.jinja").read_text(encoding="utf-8")
    python = "\n".join(line for line in source.splitlines() if not line.startswith("{{"))
    found: list[tuple[str, str]] = []
    for node in ast.parse(python).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("_runtime"):
            module = "mcp_schemagen.runtime" + node.module.removeprefix("_runtime")
            found += [(module, alias.name) for alias in node.names]
    return sorted(found, key=lambda item: item[1].casefold())


def _summary(obj: object) -> str:
    """The first paragraph of an object's own docstring (a class's, not one it inherits)."""
    doc = vars(obj).get("__doc__") if isinstance(obj, type) else inspect.getdoc(obj)
    if not isinstance(doc, str):
        return ""
    return " ".join(inspect.cleandoc(doc).split("\n\n", 1)[0].split())


def _signature(name: str, obj: object) -> str:
    if isinstance(obj, type) and typing.is_typeddict(obj):
        fields = ", ".join(
            f"{key}: {_annotation(value)}" for key, value in obj.__annotations__.items()
        )
        return f"class {name}(TypedDict): {fields}"
    try:
        signature = _as_written(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return f"{name} = {_annotation(obj)}" if not callable(obj) else name
    if isinstance(obj, type):
        return f"class {name}{signature.removesuffix(' -> None')}"
    return f"{name}{signature}"


class _Written:
    """An annotation shown as its source text (the runtime's modules postpone annotations,
    so they are strings; inspect would quote them)."""

    def __init__(self, text: object) -> None:
        self.text = text if isinstance(text, str) else _annotation(text)

    def __repr__(self) -> str:
        return self.text


def _as_written(signature: inspect.Signature) -> str:
    empty = inspect.Parameter.empty
    parameters = [
        p.replace(annotation=_Written(p.annotation)) if p.annotation is not empty else p
        for p in signature.parameters.values()
    ]
    returned = signature.return_annotation
    return str(
        signature.replace(
            parameters=parameters,
            return_annotation=_Written(returned) if returned is not empty else empty,
        )
    )


def _annotation(value: object) -> str:
    if isinstance(value, typing.ForwardRef):
        return value.__forward_arg__
    return value.__name__ if isinstance(value, type) else str(value).replace("typing.", "")


def handler_api_page() -> str:
    import importlib

    lines = [
        "# Handler API: `PACKAGE.api`",
        "",
        "Everything handler code may import, from the one public module of a generated "
        "package (`from .api import ...` in `handlers.py`). Written at every build of this site "
        "from the package template's `api.py` and the runtime's own signatures and docstrings. "
        "`PACKAGE._runtime` is private and may change in any release.",
        "",
    ]
    for module, name in api_names():
        obj = getattr(importlib.import_module(module), name)
        lines += [f"## `{name}`", "", "```python", _signature(name, obj), "```", ""]
        summary = _summary(obj)
        if summary:
            lines += [summary, ""]
    return "\n".join(lines)


GENERATED = {
    "reference/commands.md": commands_page,
    "reference/handler-api.md": handler_api_page,
}


def on_config(config: Any) -> Any:
    """Snippets (`--8<-- "README.md:quickstart"`) are found beside mkdocs.yml, whatever
    folder `mkdocs build -f` runs from."""
    snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(Path(config.config_file_path).resolve().parent)]
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages; fill the configuration table into its page."""
    from mkdocs.structure.files import File

    for uri, render in GENERATED.items():
        files.append(File.generated(config, uri, content=render()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri == "reference/configuration.md":
        return configuration_page(markdown)
    return markdown
