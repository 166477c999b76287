"""The Project -> the text of every generated file of the server package except the
protocol models and the handler module: each module made by its builder (modules.py),
formatted by one ruff run over the modules whose text changed, the runtime copied."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mcp_schemagen.compile.project import Project
from mcp_schemagen.render.formatting import format_modules
from mcp_schemagen.render.modules import MODULE_BUILDERS
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.provenance import header, sha256_text
from mcp_schemagen.render.runtime_copy import runtime_path, runtime_sources

# (path relative to the package, text before formatting) -> the formatted text an earlier
# build made of exactly that text, or None.
Reuse = Callable[[str, str], str | None]


def no_reuse(relative: str, unformatted: str) -> None:
    return None


@dataclass(frozen=True)
class RenderedPackage:
    files: list[OutputFile]
    # path relative to the package -> digest of the module's text before formatting, which
    # the build record keeps so that the next build formats only the modules that changed
    unformatted: dict[str, str]


def render_package(project: Project, reuse: Reuse = no_reuse) -> RenderedPackage:
    """Every generated module of the package except the protocol models and handlers.

    Each header lists the inputs its module depends on, so editing one tool file changes
    the headers of that tool's modules and of the shared ones, not of every module."""
    package = project.server.package_dir
    files: dict[str, str] = {}
    for build in MODULE_BUILDERS:
        files |= build(project)
    rendered = dict(sorted(files.items()))
    done = {name: reuse(name, text) for name, text in rendered.items()}
    # Only modules whose text changed since the build on disk are sorted and formatted again.
    pending = [name for name, text in done.items() if text is None]
    sources = [rendered[name] for name in pending]
    formatted = dict(zip(pending, format_modules(sources), strict=True))
    outputs = [OutputFile(package / name, done[name] or formatted[name]) for name in rendered]
    # Copied as they are: the runtime sources are formatted already (a test keeps them
    # so), and a comment header does not change that.
    runtime_header = header([], note="Runtime of the generated server, copied from mcp-codegen.")
    for source in runtime_sources():
        text = runtime_header + source.read_text(encoding="utf-8")
        outputs.append(OutputFile(package / "_runtime" / runtime_path(source), text))
    return RenderedPackage(outputs, {name: sha256_text(text) for name, text in rendered.items()})
