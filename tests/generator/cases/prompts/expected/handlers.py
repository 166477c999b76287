"""Tool and prompt handlers of prompt-server: the one module of this package you edit.

mcp-codegen wrote a stub for each tool and prompt. Fill in the bodies; `mcp-codegen build` keeps
them, updating only each handler's parameters and return type (and the import from
`.types`) when the tool or prompt schemas change. A handler may be `async def`. What handler
code may use (content, results, errors, the context) is in `.api`.

Types only annotations name are imported under `if TYPE_CHECKING:`, so the server
starts without loading them; a build moves a type your code uses at run time
(`Output(...)`, `isinstance`) to a plain import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .types import (
        CodeReviewPromptLanguage,
        CompletionArguments,
        CompletionReturn,
        PromptReturn,
        ToolReturn,
    )


# mcp-codegen tool: "summarize"
def summarize(*, text: str) -> ToolReturn:
    """Summarize a text."""
    raise NotImplementedError("summarize")


# mcp-codegen prompt: "summarize"
def summarize_prompt() -> PromptReturn:
    """A prompt sharing its name with a tool."""
    raise NotImplementedError("summarize")


# mcp-codegen prompt: "greet"
def greet(*, class_: str) -> PromptReturn:
    """Say hello."""
    raise NotImplementedError("greet")


# mcp-codegen prompt: "code_review"
def code_review(
    *, code: str, language: CodeReviewPromptLanguage | None = None, max_lines: str | None = None
) -> PromptReturn:
    """Ask the model to review a piece of code.

    Args:
        code: The code to review.
        language: The language the code is written in.
    """
    raise NotImplementedError("code_review")


# mcp-codegen completion: "prompt greet class"
def complete_greet_class(*, value: str, arguments: CompletionArguments) -> CompletionReturn:
    """Completions of argument 'class' of prompt
    'greet'.

    `value` is the text typed so far, `arguments` the arguments already chosen;
    the first 100 values returned are sent.
    """
    raise NotImplementedError("prompt greet class")
