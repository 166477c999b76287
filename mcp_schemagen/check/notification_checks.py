"""Change-notification keys that promise what the project cannot keep: ``list-changed``
naming a kind the project has none of, or ``resource-subscriptions`` without resources.
The server declares neither (a client would wait for notifications that never come), so
the build says so rather than leaving the key silently without effect."""

from __future__ import annotations

from mcp_schemagen.diagnostics import Diagnostic, warning
from mcp_schemagen.load.config import Config


def unkept_notification_keys(
    config: Config, *, has_prompts: bool, has_resources: bool
) -> list[Diagnostic]:
    where = str(config.pyproject)
    has = {"tools": True, "prompts": has_prompts, "resources": has_resources}
    problems = [
        warning(
            where,
            "/tool/mcp-codegen/list-changed",
            f"{kind!r} is listed but the project has no {kind} (no file matches its globs):"
            f" the server declares no {kind} capability, so it never sends"
            f" notifications/{kind}/list_changed; add {kind} files or drop {kind!r}",
        )
        for kind in config.list_changed
        if not has[kind]
    ]
    if config.resource_subscriptions and not has_resources:
        problems.append(
            warning(
                where,
                "/tool/mcp-codegen/resource-subscriptions",
                "is true but the project has no resources (no file matches the resources"
                " globs): the server declares no resources capability, so clients cannot"
                " subscribe; add resource files or remove the key",
            )
        )
    return problems
