"""IR -> the typed client modules (``client.py`` with one method per tool, prompt and resource,
``_client.py`` the machinery on the official SDK), for a generated package and for the
standalone client of someone else's server (``mcp-codegen client``). Names, signatures
and escaping are decided here; the templates only print."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mcp_schemagen.compile.ir import CompiledTool
from mcp_schemagen.compile.project import Project
from mcp_schemagen.compile.prompts import CompiledPrompt
from mcp_schemagen.compile.resources import CompiledResource
from mcp_schemagen.naming import docstring_literal, python_identifier, string_literal
from mcp_schemagen.render.dispatch_module import raw_json_literal_body
from mcp_schemagen.runtime.resources.table import SCHEMA_KEY

# Names client.py defines or imports for itself; a tool's public type of the same name
# would shadow them, so the client's own classes step aside (`Client_`).
# Attributes of the tools and prompts objects: a method of the same name steps aside.
_ATTRIBUTES = frozenset({"_mcp_client"})
_OWN_NAMES = frozenset(
    {
        "ArgumentError",
        "BaseClient",
        "ClientError",
        "ContractError",
        "ResourceContents",
        "TaskCancelled",
        "TaskError",
        "TaskFailed",
        "TaskHandle",
        "TaskInputError",
        "TaskState",
        "TaskTimeout",
        "ToolCallError",
    }
)
# The resources object's own methods: no reader name (always `read_...`) can take them.
_RESOURCE_ATTRIBUTES = _ATTRIBUTES | {"list_all", "list_templates"}


# Module names a method body uses: a parameter of the same name would shadow them, so
# such a parameter is renamed (`_cast_`); `self` is renamed in the method instead.
_BODY_NAMES = frozenset({"_Any", "_cast", "_mcp", "_mcp_types"})


@dataclass(frozen=True)
class ClientMethod:
    name: str
    self_name: str  # `self`, unless a parameter is called so
    parameters: str  # Python source after `self, `
    returns: str
    docstring: str | None
    body: tuple[str, ...]


def _free(name: str, taken: frozenset[str]) -> str:
    while name in taken:
        name += "_"
    return name


def _plain(text: str) -> str:
    """``text`` for the middle of a docstring: printable ASCII, no quote or backslash."""
    return "".join(c if 0x20 <= ord(c) < 0x7F and c not in '\\"' else "?" for c in text)


def _optional(annotation: str) -> str:
    return annotation if "None" in annotation.split(" | ") else f"{annotation} | None"


def task_support(definition: Mapping[str, Any]) -> str | None:
    """ "optional" or "required" for a tool that may or must run as a task."""
    execution = definition.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, Mapping) else None
    return support if support in ("optional", "required") else None


def tool_methods(
    tool: CompiledTool, taken: frozenset[str]
) -> list[tuple[ClientMethod, frozenset[str]]]:
    """The tool's method; for a tool that may or must run as a task also ``start_<tool>``
    (named clear of ``taken``, the tool methods' names): the same parameters, answered
    with the task's ``TaskHandle`` of the same typed result."""
    method, names = tool_method(tool)
    if task_support(tool.definition) is None:
        return [(method, names)]
    started, _ = tool_method(tool, started=True)
    about = (
        f"Starts {_plain(tool.name)} as a task: its handle (task_id, status(), wait(), cancel())."
    )
    start = replace(
        started,
        name=_free("start_" + tool.function, taken),
        docstring=docstring_literal(about, indent="        "),
    )
    return [(method, names), (start, names)]


def tool_method(
    tool: CompiledTool, *, started: bool = False
) -> tuple[ClientMethod, frozenset[str]]:
    """The method of one tool and the public type names its signature uses. Parameters are
    the handler's, except that every argument the schema does not require may be left out
    (None: not sent, so the server applies its default). ``started``: the method that
    answers with the task's handle instead of the result."""
    names: set[str] = set()
    body: list[str] = []
    local = _local_names([p.python_name for p in tool.parameters])
    taken = frozenset({tool.whole_arguments or "", *local.values()})
    this = _free("self", taken)
    # The dict sent, named apart from every parameter (a property may be called "arguments").
    sent_name = _free("arguments", taken | {this})
    if tool.whole_arguments is not None:
        parameters = f"{tool.whole_arguments}: {tool.input_type}"
        names.add(tool.input_type)
        # sent as it is, whatever the input type (a TypedDict, a union of them, a dict)
        body.append(f"{sent_name}: _Any = {tool.whole_arguments}")
    else:
        signature, sent, left_out = [], [], []
        for p in tool.parameters:
            names |= p.references
            py = local[p.python_name]
            required = p.default_source is None and not p.has_schema_default
            if required:
                signature.append(f"{py}: {p.annotation}")
                sent.append(p)
            elif p.default_source is not None and p.default_source != "None":
                signature.append(f"{py}: {p.annotation} = {p.default_source}")
                sent.append(p)
            else:  # no default, a mutable one, or null: sent only when given
                signature.append(f"{py}: {_optional(p.annotation)} = None")
                left_out.append(p)
        parameters = "*, " + ", ".join(signature) if signature else ""
        items = ", ".join(f"{string_literal(p.json_name)}: {local[p.python_name]}" for p in sent)
        body.append(f"{sent_name}: dict[str, _Any] = {{{items}}}")
        for p in left_out:
            py = local[p.python_name]
            body.append(f"if {py} is not None:")
            body.append(f"    {sent_name}[{string_literal(p.json_name)}] = {py}")
    name = string_literal(tool.name)
    verb = "start" if started else "call"
    if tool.output_type is not None:
        names.add(tool.output_type)
        returns = f"TaskHandle[{tool.output_type}]" if started else tool.output_type
        body.append(
            f"return _cast({returns}, "
            f"await {this}._mcp_client.{verb}_structured({name}, {sent_name}))"
        )
    else:
        returns = "list[_mcp_types.ContentBlock]"
        returns = f"TaskHandle[{returns}]" if started else returns
        body.append(f"return await {this}._mcp_client.{verb}_content({name}, {sent_name})")
    doc = tool.description.strip() if tool.description and tool.description.strip() else None
    method = ClientMethod(
        _free(tool.function, _ATTRIBUTES),
        this,
        parameters,
        returns,
        docstring_literal(doc, indent="        ") if doc else None,
        tuple(body),
    )
    return method, frozenset(names)


def prompt_method(prompt: CompiledPrompt) -> tuple[ClientMethod, frozenset[str]]:
    local = _local_names([p.python_name for p in prompt.parameters])
    this = _free("self", frozenset(local.values()))
    signature = [
        f"{local[p.python_name]}: {p.annotation}" + ("" if p.required else " | None = None")
        for p in prompt.parameters
    ]
    items = ", ".join(
        f"{string_literal(p.json_name)}: {local[p.python_name]}" for p in prompt.parameters
    )
    doc = prompt.description.strip() if prompt.description and prompt.description.strip() else None
    method = ClientMethod(
        _free(prompt.function, _ATTRIBUTES),
        this,
        "*, " + ", ".join(signature) if signature else "",
        "_mcp_types.GetPromptResult",
        docstring_literal(doc, indent="        ") if doc else None,
        (
            f"return await {this}._mcp_client.get_prompt("
            f"{string_literal(prompt.name)}, {{{items}}})",
        ),
    )
    return method, frozenset(a.name for a in prompt.aliases)


def resource_methods(resources: Sequence[CompiledResource]) -> list[ClientMethod]:
    """One method per static resource (no parameters: its URI is read) and template (its
    variables as keyword parameters, typed as the reader's, expanded into the URI), named
    as the reader in handlers.py is (``read_<name>``), so client and server agree."""
    methods: list[ClientMethod] = []
    # A reader's name is its handler's (unique already); a resource served from a file
    # takes the name its reader would have, or that name with `_` when a reader holds it.
    taken = set(_RESOURCE_ATTRIBUTES) | {r.function for r in resources if r.function}
    for resource in resources:
        name = resource.function
        if name is None:
            name = _free("read_" + python_identifier(resource.name).lstrip("_"), frozenset(taken))
            taken.add(name)
        local = _local_names([p.python_name for p in resource.parameters])
        this = _free("self", frozenset(local.values()))
        about = resource.description.strip() if resource.description else ""
        doc = (about + "\n\n" if about else "") + f"resources/read of {_plain(resource.key)}"
        if resource.parameters:
            signature = [
                f"{local[p.python_name]}: {p.annotation}" + ("" if p.required else " | None = None")
                for p in resource.parameters
            ]
            items = ", ".join(
                f"{string_literal(p.json_name)}: {local[p.python_name]}"
                for p in resource.parameters
            )
            parameters = "*, " + ", ".join(signature)
            body = (
                f"return await {this}._mcp_client.read_template("
                f"{string_literal(resource.name)}, {{{items}}})",
            )
        else:
            parameters = ""
            body = (
                f"return await {this}._mcp_client.read_resource({string_literal(resource.key)})",
            )
        methods.append(
            ClientMethod(
                name,
                this,
                parameters,
                "list[ResourceContents]",
                docstring_literal(doc, indent="        "),
                body,
            )
        )
    return methods


def resource_templates(resources: Sequence[CompiledResource]) -> dict[str, dict[str, Any]]:
    """Each template's text and variable schemas, by name, for the client's checks."""
    return {
        r.name: {
            "uriTemplate": r.key,
            "schemas": r.definition.get(SCHEMA_KEY, {}),
        }
        for r in resources
        if r.parameters
    }


def _local_names(python_names: list[str]) -> dict[str, str]:
    """Each parameter's name in the method: its handler name, unless a body name."""
    chosen: dict[str, str] = {}
    taken = set(python_names) | _BODY_NAMES
    for name in python_names:
        if name in _BODY_NAMES:
            renamed = _free(name + "_", frozenset(taken))
            taken.add(renamed)
            chosen[name] = renamed
        else:
            chosen[name] = name
    return chosen


def tool_schemas(tools: Sequence[CompiledTool]) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for tool in tools:
        entry = {"inputSchema": tool.definition.get("inputSchema", {"type": "object"})}
        if tool.output_type is not None:
            entry["outputSchema"] = tool.definition["outputSchema"]
        support = task_support(tool.definition)
        if support is not None:
            entry["taskSupport"] = support
        table[tool.name] = entry
    return table


def client_modules(
    template: Any, project: Project, *, header: str, machinery_header: str
) -> dict[str, str]:
    """``client.py`` and ``_client.py`` (paths relative to the package) before formatting;
    ``template(name, **values)`` renders a template of templates/package/. A project
    without a server package (``project.package`` None) is a standalone client."""
    tools, resources, server_module = project.tools, project.resources, project.package
    method_names = frozenset(_free(t.function, _ATTRIBUTES) for t in tools) | _ATTRIBUTES
    methods = [m for t in tools for m in tool_methods(t, method_names)]
    prompt_methods = [prompt_method(p) for p in project.prompts]
    aliases = {a.name for r in resources for a in r.aliases}
    used = sorted({n for _, names in (*methods, *prompt_methods) for n in names} | aliases)
    taken = frozenset(used) | _OWN_NAMES
    # JSON text in a raw string, as the dispatch module's data is: ruff's time grows with
    # the length of a line of code it formats, not with a string token's.
    schemas = raw_json_literal_body(tool_schemas(tools))
    example = methods[0][0].name if methods else "NAME"
    return {
        "client.py": template(
            "client.py.jinja",
            header=header,
            server_name_text=_plain(project.server_name),
            own_server=server_module is not None,
            example_method=example,
            type_imports=", ".join(used),
            schemas=schemas,
            tools=[m for m, _ in methods],
            prompts=[m for m, _ in prompt_methods],
            resources=resource_methods(resources),
            resource_templates=repr(resource_templates(resources)),
            client_class=_free("Client", taken),
            tools_class=_free("ClientTools", taken),
            prompts_class=_free("ClientPrompts", taken),
            resources_class=_free("ClientResources", taken),
            server_module="None" if server_module is None else string_literal(server_module),
        ),
        "_client.py": template("_client.py.jinja", header=machinery_header),
        "_tasks.py": template("_tasks.py.jinja", header=machinery_header),
    }
