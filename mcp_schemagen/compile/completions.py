"""Completion handlers the author asked for -> their IR: one handler in handlers.py per
prompt argument marked ``"x-mcp-codegen-complete": true`` and per template variable a
template lists in its ``"x-mcp-codegen-complete": [...]``, named after what it completes,
never colliding with another handler or a public type."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mcp_schemagen.compile.prompts import CompiledPrompt
from mcp_schemagen.compile.resources import CompiledResource
from mcp_schemagen.compile.type_names import Names
from mcp_schemagen.naming import docstring_literal, python_identifier
from mcp_schemagen.runtime.core.completion import COMPLETE_KEY, completer_key

# Re-exported by types.py when a completion handler exists; no generated name may take them.
COMPLETION_TYPES = ("CompletionArguments", "CompletionReturn")
COMPLETION_PARAMETERS = "*, value: str, arguments: CompletionArguments"


@dataclass(frozen=True)
class CompiledCompleter:
    kind: str  # "prompt" or "resource": what it completes an argument of
    owner: str  # the prompt's name, or the resource template
    argument: str  # the argument's (or template variable's) name
    function: str

    returns = "CompletionReturn"

    @property
    def key(self) -> str:
        """Its name in the dispatch table and its marker comment (completer_key)."""
        return completer_key(self.kind, self.owner, self.argument)

    def docstring(self) -> str:
        what = "argument" if self.kind == "prompt" else "variable"
        owner = "prompt" if self.kind == "prompt" else "resource template"
        return docstring_literal(
            f"Completions of {what} {self.argument!r} of {owner}\n{self.owner!r}.\n\n"
            "`value` is the text typed so far, `arguments` the arguments already chosen;\n"
            "the first 100 values returned are sent."
        )


def compile_completers(
    prompts: Sequence[CompiledPrompt], resources: Sequence[CompiledResource], functions: Names
) -> list[CompiledCompleter]:
    """``functions``: the names tools, prompts and readers took already (the set is
    extended with the completers')."""
    functions.used.update(COMPLETION_TYPES)
    wanted: list[tuple[str, str, str, str]] = []
    for prompt in prompts:
        for argument in prompt.definition.get("arguments", []):
            if argument.get(COMPLETE_KEY) is True:
                wanted.append(("prompt", prompt.name, prompt.function, argument["name"]))
    for resource in resources:
        marked = resource.definition.get(COMPLETE_KEY, [])
        for variable in marked if isinstance(marked, list) else []:
            base = python_identifier(resource.name).lstrip("_")
            wanted.append(("resource", resource.key, base, variable))
    compiled = []
    for kind, owner, base, argument in wanted:
        # After the prefix a keyword needs no escape: "class" completes as ..._class.
        name = f"complete_{base}_{python_identifier(argument).strip('_') or 'argument'}"
        function = functions.claim(name if name not in functions.used else name + "_completion")
        compiled.append(CompiledCompleter(kind, owner, argument, function))
    return compiled
