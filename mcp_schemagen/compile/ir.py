"""What the templates read: frozen, sorted, already-escaped facts about each tool."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_schemagen.compile.typed_module import TypedModule

# Re-exported by types.py beside every tool's types, so that handler signatures need one
# import; no tool's type may take one of these names.
CONTENT_TYPES = (
    "AudioContent",
    "ContentBlock",
    "EmbeddedResource",
    "ImageContent",
    "ResourceLink",
    "TextContent",
    "ToolResult",
    "ToolReturn",
)


@dataclass(frozen=True)
class Parameter:
    """One keyword parameter of a handler, mapped from one property of the inputSchema."""

    json_name: str
    python_name: str
    annotation: str  # Python source
    references: frozenset[str]  # the public type names (of .types) the annotation uses
    default_source: str | None  # Python literal shown in the signature, or None
    has_schema_default: bool
    schema_default: Any
    description: str | None  # the property's, for the handler's docstring

    def signature(self) -> str:
        default = f" = {self.default_source}" if self.default_source is not None else ""
        return f"{self.python_name}: {self.annotation}{default}"


@dataclass(frozen=True)
class TypeExport:
    """A name the public ``types`` module re-exports from a tool's private types module."""

    public: str
    module: str
    local: str


@dataclass(frozen=True)
class CompiledTool:
    """One tool as every later stage sees it: render, handlers and the checks after
    compiling read this, never the loaded file."""

    name: str
    definition: dict[str, Any]  # as written: what the dispatch data stores
    file: str  # where it was written, for diagnostics and provenance
    pointer: str
    function: str  # handler function name
    class_prefix: str  # prefix of the tool's public type names
    input_module: str  # private module names, under _types
    output_module: str | None
    input_types: TypedModule
    output_types: TypedModule | None
    input_type: str  # public name of the input type
    output_type: str | None
    parameters: tuple[Parameter, ...]
    whole_arguments: (
        str | None
    )  # parameter taking all arguments when the root is not a plain object
    exports: tuple[TypeExport, ...]
    description: str | None

    @property
    def returns(self) -> str:
        """Every return the runtime accepts: the output type or a ToolResult; without an
        outputSchema, ToolReturn (text, content blocks, data, a ToolResult)."""
        return f"{self.output_type} | ToolResult" if self.output_type else "ToolReturn"

    def type_references(self) -> frozenset[str]:
        """The public type names the handler's signature uses, for its import."""
        names = {self.output_type, "ToolResult"} if self.output_type else {"ToolReturn"}
        if self.whole_arguments is not None:
            names.add(self.input_type)
        for parameter in self.parameters:
            names |= parameter.references
        return frozenset(names)

    def signature_parameters(self) -> str:
        if self.whole_arguments is not None:
            return f"{self.whole_arguments}: {self.input_type}"
        if not self.parameters:
            return ""
        return "*, " + ", ".join(p.signature() for p in self.parameters)
