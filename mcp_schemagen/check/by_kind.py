"""Each kind's checks over all its definitions at once: the ``check`` of its row in
kinds.KINDS. The checks of one definition live in the kind's own module
(tool_checks.py, prompt_checks.py, resource_checks.py); this module says which run, in
which order, and what needs the whole kind (duplicates, what older clients lose).
The checks are imported when they run: kinds.KINDS names these functions and the
build record reads that table on `check`'s pre-commit path, which must stay light.
``loaded``: what reading the kind's files found (what older clients lose is said only
of prompts and resources that were read and checked without error)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from mcp_schemagen.diagnostics import Diagnostic, error, has_errors, pointer_join
from mcp_schemagen.load.config import Config
from mcp_schemagen.source import Source


def check_tools(
    sources: Sequence[Source], config: Config, loaded: Sequence[Diagnostic] = ()
) -> list[Diagnostic]:
    from mcp_schemagen.check.omissions import omission_warnings
    from mcp_schemagen.check.tool_checks import check_tool
    from mcp_schemagen.load.published import publish

    # Each tool as each revision publishes it, worked out once for both kinds of check.
    published = [publish(source.definition, config.revisions) for source in sources]
    accepted = frozenset(config.accept_keywords)
    problems: list[Diagnostic] = []
    for source, forms in zip(sources, published, strict=True):
        problems.extend(check_tool(source, forms, accepted))
    problems.extend(omission_warnings(zip(sources, published, strict=True), config.accept_omitted))
    problems.extend(duplicate_tool_names(sources))
    return problems


def duplicate_tool_names(sources: Sequence[Source]) -> list[Diagnostic]:
    by_name: dict[str, list[Source]] = defaultdict(list)
    for source in sources:
        if isinstance(source.definition.get("name"), str):
            by_name[source.definition["name"]].append(source)
    problems = []
    for name, same in by_name.items():
        for later in same[1:]:
            first = same[0]
            problems.append(
                error(
                    later.file,
                    pointer_join(later.pointer, "name"),
                    f"tool name {name!r} is already used at {first.file}#{first.pointer}; "
                    "names must be unique (case-sensitive)",
                )
            )
    return problems


def whole_kind(
    sources: Sequence[Source],
    loaded: Sequence[Diagnostic],
    each: Callable[[Source], list[Diagnostic]],
    duplicates: Callable[[Sequence[Source]], list[Diagnostic]],
    omissions: Callable[[Sequence[Source]], list[Diagnostic]],
) -> list[Diagnostic]:
    """The shape every kind's checks share: each definition, then duplicates across
    them, then what older clients lose (said only of a kind read and checked cleanly)."""
    problems = [problem for source in sources for problem in each(source)]
    problems += duplicates(sources)
    if not has_errors([*loaded, *problems]):
        problems += omissions(sources)
    return problems


def check_prompts(
    sources: Sequence[Source], config: Config, loaded: Sequence[Diagnostic] = ()
) -> list[Diagnostic]:
    from mcp_schemagen.check.prompt_checks import (
        check_prompt,
        duplicate_prompt_names,
        prompt_omission_warnings,
    )

    accepted = frozenset(config.accept_keywords)
    return whole_kind(
        sources,
        loaded,
        lambda source: check_prompt(source, config.revisions, accepted),
        duplicate_prompt_names,
        lambda every: prompt_omission_warnings(every, config.revisions, config.accept_omitted),
    )


def check_resources(
    sources: Sequence[Source], config: Config, loaded: Sequence[Diagnostic] = ()
) -> list[Diagnostic]:
    """Static resources and templates together: they share files and duplicate checks."""
    from mcp_schemagen.check.resource_checks import (
        check_resource,
        duplicate_resources,
        resource_omission_warnings,
    )

    accepted = frozenset(config.accept_keywords)
    return whole_kind(
        sources,
        loaded,
        lambda source: check_resource(
            source, config.revisions, config.root, accepted, config.package_dir
        ),
        duplicate_resources,
        lambda every: resource_omission_warnings(every, config.revisions, config.accept_omitted),
    )
