"""``mcp-codegen client LISTING --out DIR``: a standalone typed client package for a server
mcp-codegen did not generate, from its tool files or a saved ``tools/list`` result (JSON
or YAML). The tools go through the build's own load, check and compile stages, so the
client has the same TypedDicts and validators a generated server would; nothing of the
server is written but the validator module the client checks with (and the URI template
module its machinery imports)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mcp_schemagen import caches
from mcp_schemagen.check.tool_checks import check_tool
from mcp_schemagen.compile.compiler import compile_tools
from mcp_schemagen.compile.project import Project
from mcp_schemagen.diagnostics import BuildError, Diagnostic, Level, error, warning
from mcp_schemagen.load.published import publish
from mcp_schemagen.load.tools import load_tools
from mcp_schemagen.naming import docstring_literal, python_identifier
from mcp_schemagen.render.client import client_modules
from mcp_schemagen.render.formatting import format_modules
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.provenance import header, sha256_text
from mcp_schemagen.render.runtime_copy import RUNTIME_DIR
from mcp_schemagen.render.templates import template
from mcp_schemagen.runtime.protocol import DEFAULT_NAMES
from mcp_schemagen.source import Source

# The runtime modules the client imports (and the one validation imports): the validator
# the server uses, so a standalone client checks exactly as a generated server would, and
# the URI template module the client's machinery expands templates with.
VALIDATOR_MODULES = (
    "validation.py",
    "shorten.py",
    "resources/__init__.py",
    "resources/uri_template.py",
)


def package_name(listing: Path) -> str:
    """``everything-tools.json`` -> ``everything_tools_client``."""
    name = python_identifier(listing.stem.lower()).strip("_") or "server"
    return name + "_client"


def load_listing(files: Sequence[Path]) -> tuple[list[Source], list[Diagnostic]]:
    """Every tool of the files; tools the build would refuse are left out of the client
    with a warning naming the problem (someone else's server is what it is: a tool whose
    x-mcp-header is malformed, or whose schema points at a network $ref the client must
    never fetch, cannot be called safely)."""
    sources: list[Source] = []
    problems: list[Diagnostic] = []
    for path in files:
        if not path.is_file():
            problems.append(
                error(str(path), "", "no such file; give a tool file or a saved tools/list result")
            )
            continue
        found, read_problems, _ = load_tools(path.parent, [path.name], allow_outside=True)
        problems += read_problems
        sources += found
    if any(p.level is Level.ERROR for p in problems):
        raise BuildError(problems)
    kept: list[Source] = []
    for source in sources:
        errors = [
            d
            for d in check_tool(source, publish(source.definition, DEFAULT_NAMES))
            if d.level is Level.ERROR
        ]
        if errors and not _callable_shape(source):
            # Not a tool at all (no name, no object inputSchema): the listing is wrong,
            # not the server's choice, so it stops the command.
            raise BuildError(problems + errors)
        if errors:
            first = errors[0]
            problems.append(
                warning(
                    source.file,
                    source.pointer,
                    f"tool {source.definition.get('name')!r} is left out of the client: "
                    f"{first.pointer}: {first.message}",
                )
            )
        else:
            kept.append(source)
    seen: set[str] = set()
    unique = []
    for source in kept:
        name = source.definition["name"]
        if name in seen:
            problems.append(
                warning(
                    source.file, source.pointer, f"tool {name!r} listed twice; the first is kept"
                )
            )
            continue
        seen.add(name)
        unique.append(source)
    if not unique and sources:
        problems.append(
            warning(
                ", ".join(map(str, files)),
                "",
                "no tool of the listing can be called (see the warnings above): the client has "
                "no tool methods",
            )
        )
    return unique, problems


def _callable_shape(source: Source) -> bool:
    """Whether a definition has what a call needs: a name and an object inputSchema."""
    name, schema = source.definition.get("name"), source.definition.get("inputSchema")
    return isinstance(name, str) and bool(name) and isinstance(schema, dict)


def standalone_client(
    files: Sequence[Path], package: str, out: Path
) -> tuple[list[OutputFile], list[Diagnostic]]:
    """The files of package ``package`` under ``out`` and the warnings on the way."""
    sources, problems = load_listing(files)
    tools, compile_problems = compile_tools(sources, caches.folder("types"))
    problems += compile_problems
    if any(p.level is Level.ERROR for p in problems):
        raise BuildError(problems)
    inputs = sorted({(f.name, sha256_text(f.read_bytes())) for f in files})
    top = header(inputs)
    none = header([])
    exports = [e for t in tools for e in t.exports]
    imports = "".join(
        f"from ._types.{e.module} import {e.local}\n"
        if e.local == e.public
        else f"from ._types.{e.module} import {e.local} as {e.public}\n"
        for e in exports
    )
    names = "".join(f'    "{e.public}",\n' for e in exports)
    modules: dict[str, str] = {
        "__init__.py": none
        + docstring_literal(
            f"A typed MCP client generated by `mcp-codegen client` from {', '.join(s.file for s in sources[:1])}"
            f"{' and more' if len({s.file for s in sources}) > 1 else ''}.\n\n"
            "Connect with `client.connect_stdio(command)` or `client.connect_http(url)`.",
            indent="",
        )
        + "\n",
        "types.py": top
        + '"""Types of every tool\'s arguments and structured results."""\n\n'
        + imports
        + f"\n__all__ = [\n{names}]\n",
        "_types/__init__.py": none
        + '"""Types of each tool, one private module per tool and direction."""\n',
        "_runtime/__init__.py": none + '"""The validator of mcp-codegen\'s server runtime."""\n',
    }
    for tool in tools:
        modules[f"_types/{tool.input_module}.py"] = top + tool.input_types.source
        if tool.output_module is not None and tool.output_types is not None:
            modules[f"_types/{tool.output_module}.py"] = top + tool.output_types.source
    standalone = Project(server_name=package, config=None, inputs=dict(inputs), tools=tuple(tools))
    modules |= client_modules(template, standalone, header=top, machinery_header=none)
    ordered = dict(sorted(modules.items()))
    formatted = format_modules(list(ordered.values()))
    outputs = [
        OutputFile(out / package / name, text)
        for name, text in zip(ordered, formatted, strict=True)
    ]
    copied = header([], note="Copied from mcp-codegen's server runtime.")
    for name in VALIDATOR_MODULES:
        text = copied + (RUNTIME_DIR / name).read_text(encoding="utf-8")
        outputs.append(OutputFile(out / package / "_runtime" / name, text))
    outputs.append(OutputFile(out / package / "py.typed", ""))
    return outputs, [p for p in problems if p.level is Level.WARNING]
