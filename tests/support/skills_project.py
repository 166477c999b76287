"""A project with a skills/ folder (the Skills extension, SEP-2640), shared by the end to
end tests that read it through the official SDK and through raw JSON-RPC."""

from __future__ import annotations

from pathlib import Path

from tests.support.projects import run_cli, tool, write_project

EXTENSION = "io.modelcontextprotocol/skills"
# Path under skills/ -> content: two skills, one under a prefix, with text in UTF-8 and
# CRLF, a script and a binary file.
SKILLS = {
    "git-workflow/SKILL.md": b"---\nname: git-workflow\ndescription: Follow the team's Git"
    b" conventions.\n---\n# Git\nBranch from main.\n",
    "acme/billing/refunds/SKILL.md": b"---\nname: refunds\ndescription: Process refund"
    b" requests.\nlicense: Apache-2.0\nmetadata:\n  version: '2.1'\n---\n"
    b"Read [the policy](references/POLICY.md) and run [this](scripts/check.py).\n",
    "acme/billing/refunds/references/POLICY.md": "Refunds within 30 days \u2713\r\n".encode(),
    "acme/billing/refunds/scripts/check.py": b"print('ok')\n",
    "acme/billing/refunds/assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\xff",
}


def skills_project(folder: Path, page_size: int = 1) -> Path:
    """The project built in ``folder`` (package ``server``), speaking 2025-11-25 and
    2026-07-28; ``page_size`` small, so skills/list pages."""
    root = write_project(
        folder,
        {"echo.json": tool()},
        revisions=("2025-11-25", "2026-07-28"),
        extra=f"page-size = {page_size}\n",
    )
    for path, data in SKILLS.items():
        target = root / "skills" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


def on_disk(uri: str) -> bytes:
    """The bytes of the project file a skill:// URI names."""
    return SKILLS[uri.removeprefix("skill://")]
