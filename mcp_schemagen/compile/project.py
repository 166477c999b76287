"""The one IR of a build: every compiled item by kind, the names they took, what each
generated module imports, and the configuration facts, in one frozen `Project` that
render, handlers, the typed client and the build record read (and nothing else)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mcp_schemagen import GENERATOR_INPUT
from mcp_schemagen.compile.compiler import compile_tools
from mcp_schemagen.compile.completions import (
    COMPLETION_TYPES,
    CompiledCompleter,
    compile_completers,
)
from mcp_schemagen.compile.ir import CONTENT_TYPES, CompiledTool
from mcp_schemagen.compile.prompts import PROMPT_TYPES, CompiledPrompt, compile_prompts
from mcp_schemagen.compile.resources import (
    RESOURCE_TYPES,
    CompiledResource,
    compile_resources,
    readers,
    taken_names,
)
from mcp_schemagen.compile.skills import CompiledSkill, compile_skills, taken_skill_uris
from mcp_schemagen.diagnostics import BuildError, Diagnostic, has_errors
from mcp_schemagen.kind_sources import of_kinds
from mcp_schemagen.load.config import Config
from mcp_schemagen.load.http_call import HTTP_KEY
from mcp_schemagen.source import Source


@dataclass(frozen=True)
class Project:
    """Everything a build makes its files from. ``config`` is None for a standalone typed
    client (`mcp-codegen client`), which has tools and a name but no server package."""

    server_name: str
    config: Config | None
    # Digest of every input by label (render/provenance.py headers, the build record).
    inputs: Mapping[str, str]
    tools: tuple[CompiledTool, ...]
    prompts: tuple[CompiledPrompt, ...] = ()
    resources: tuple[CompiledResource, ...] = ()  # static resources and templates, in file order
    completers: tuple[CompiledCompleter, ...] = ()
    skills: tuple[CompiledSkill, ...] = ()  # skills/ folders (SEP-2640), in path order
    # The names table: every handler function name taken, whatever its kind.
    functions: frozenset[str] = frozenset()
    # What types.py defines, in the order of its __all__ (the handler module may import
    # only these), and what the handler module imports from it.
    type_names: tuple[str, ...] = ()
    handler_imports: tuple[str, ...] = ()
    warnings: tuple[Diagnostic, ...] = field(default=())

    @property
    def server(self) -> Config:
        """The configuration of a project that builds a server package."""
        assert self.config is not None, "a standalone client has no server configuration"
        return self.config

    @property
    def package(self) -> str | None:
        """The server package's import name; None for a standalone client."""
        return self.config.package if self.config is not None else None

    @property
    def provenance(self) -> dict[str, str]:
        """The inputs generated headers name (the generator's own fingerprint is the build
        record's business, not each module's)."""
        return {k: v for k, v in self.inputs.items() if k != GENERATOR_INPUT}

    @property
    def readers(self) -> list[CompiledResource]:
        """The resources served by a reader in handlers.py."""
        return readers(self.resources)

    @property
    def inventory(self) -> dict[str, int]:
        """What the package serves, by kind, as the build record and `build` report it."""
        counts = {
            "tools": len(self.tools),
            "prompts": len(self.prompts),
            "resources": len(self.resources),
        }
        if self.skills:  # said only when there are some: older records stay as they were
            counts["skills"] = len(self.skills)
        return counts


def compile_project(
    config: Config,
    sources: Sequence[Source],
    inputs: Mapping[str, str],
    checked: Sequence[Diagnostic] = (),
    cache_dir: Path | None = None,
    *,
    types_started: bool = False,
) -> Project:
    """The project's checked definitions compiled, each kind clear of the names the kinds
    before it took. ``checked``: what the checks said (warnings), kept with the compile's
    own; an error among them all is raised as a BuildError. ``types_started``: see
    compile_tools."""
    tools, problems = compile_tools(
        of_kinds(sources, "tool"), cache_dir, types_started=types_started
    )
    problems = [*checked, *problems]
    if has_errors(problems):
        raise BuildError(problems)
    prompts = compile_prompts(of_kinds(sources, "prompt"), tools)
    functions, types = taken_names(tools, prompts)
    resource_sources = of_kinds(sources, "resource", "resource template")
    resources = compile_resources(resource_sources, config.root, functions, types)
    completers = compile_completers(prompts, resources, functions)
    skills, skill_problems = compile_skills(config.root)
    problems += skill_problems + taken_skill_uris(skills, resources)
    if has_errors(problems):
        raise BuildError(problems)
    return Project(
        server_name=config.server_name,
        config=config,
        inputs=dict(inputs),
        tools=tuple(tools),
        prompts=tuple(prompts),
        resources=tuple(resources),
        completers=tuple(completers),
        skills=tuple(skills),
        functions=frozenset(functions.used),
        type_names=exported_types(tools, prompts, resources, completers),
        handler_imports=handler_imports(tools, prompts, resources, completers),
        warnings=tuple(problems),
    )


def exported_types(
    tools: Sequence[CompiledTool],
    prompts: Sequence[CompiledPrompt] = (),
    resources: Sequence[CompiledResource] = (),
    completers: Sequence[CompiledCompleter] = (),
) -> tuple[str, ...]:
    """Every name types.py defines, in its __all__ order."""
    aliases = [a for p in prompts for a in p.aliases] + [a for r in resources for a in r.aliases]
    return (
        *(COMPLETION_TYPES if completers else ()),
        *CONTENT_TYPES,
        *(PROMPT_TYPES if prompts else ()),
        *(RESOURCE_TYPES if readers(resources) else ()),
        *(e.public for t in tools for e in t.exports),
        *(a.name for a in aliases),
        *(("upstream",) if calls_upstream(tools) else ()),
    )


def calls_upstream(tools: Sequence[CompiledTool]) -> bool:
    """Whether a tool was imported from OpenAPI: types.py then names the generated calls
    ``upstream``, the one name an imported operation's handler stub reads."""
    return any(isinstance(tool.definition.get(HTTP_KEY), dict) for tool in tools)


def handler_imports(
    tools: Sequence[CompiledTool],
    prompts: Sequence[CompiledPrompt] = (),
    resources: Sequence[CompiledResource] = (),
    completers: Sequence[CompiledCompleter] = (),
) -> tuple[str, ...]:
    """The types the handlers' signatures name, sorted: what handlers.py imports."""
    return tuple(
        sorted(
            {name for tool in tools for name in tool.type_references()}
            | {name for prompt in prompts for name in prompt.type_references()}
            | {name for resource in readers(resources) for name in resource.type_references()}
            | (set(COMPLETION_TYPES) if completers else set())
        )
    )
