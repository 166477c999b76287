"""Where mcp-codegen was installed from (PEP 610 direct_url.json), as the requirement a new
project installs the same generator by (mcp_schemagen/install_source.py)."""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

import pytest

from mcp_schemagen import DISTRIBUTION, __version__
from mcp_schemagen.install_source import current_source, source_of

PINNED = f"{DISTRIBUTION}=={__version__}"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("record", "requirement", "origin"),
    [
        pytest.param(None, PINNED, "the package index", id="index"),
        pytest.param(
            {"url": "file:///src/mcp-codegen", "dir_info": {"editable": True}},
            f"{DISTRIBUTION} @ file:///src/mcp-codegen",
            "the checkout /src/mcp-codegen",
            id="editable checkout",
        ),
        pytest.param(
            {"url": "file:///src/my%20code", "dir_info": {}},
            f"{DISTRIBUTION} @ file:///src/my%20code",
            "the checkout /src/my code",
            id="checkout with a space",
        ),
        pytest.param(
            {"url": "file:///d/mcp_schemagen-0.1.0-py3-none-any.whl", "archive_info": {}},
            f"{DISTRIBUTION} @ file:///d/mcp_schemagen-0.1.0-py3-none-any.whl",
            "the wheel /d/mcp_schemagen-0.1.0-py3-none-any.whl",
            id="local wheel",
        ),
        pytest.param(
            {"url": "https://files.example/mcp_schemagen-0.1.0.tar.gz", "archive_info": {}},
            f"{DISTRIBUTION} @ https://files.example/mcp_schemagen-0.1.0.tar.gz",
            "the archive https://files.example/mcp_schemagen-0.1.0.tar.gz",
            id="remote sdist",
        ),
        pytest.param(
            {
                "url": "https://git.example/o/mcp-codegen.git",
                "vcs_info": {"vcs": "git", "commit_id": COMMIT, "requested_revision": "v0.1.0"},
            },
            f"{DISTRIBUTION} @ git+https://git.example/o/mcp-codegen.git@{COMMIT}",
            f"git https://git.example/o/mcp-codegen.git@{COMMIT}",
            id="git, pinned to the commit installed",
        ),
        pytest.param(
            {
                "url": "https://user:s3cret@git.example/o/m.git",
                "vcs_info": {"vcs": "git", "commit_id": COMMIT},
                "subdirectory": "generator",
            },
            f"{DISTRIBUTION} @ git+https://git.example/o/m.git@{COMMIT}#subdirectory=generator",
            f"git https://git.example/o/m.git@{COMMIT}",
            id="credentials never copied",
        ),
        pytest.param(
            {
                "url": "ssh://git@git.example/o/m.git",
                "vcs_info": {"vcs": "git", "commit_id": COMMIT},
            },
            f"{DISTRIBUTION} @ git+ssh://git@git.example/o/m.git@{COMMIT}",
            f"git ssh://git@git.example/o/m.git@{COMMIT}",
            id="ssh user kept",
        ),
        pytest.param({"no": "url"}, PINNED, "the package index", id="unreadable record"),
    ],
)
def test_source_of_a_direct_url_record(
    record: dict[str, Any] | None, requirement: str, origin: str
) -> None:
    source = source_of(None if record is None else json.dumps(record))
    assert (source.requirement, source.origin) == (requirement, origin)
    assert "s3cret" not in repr(source)


def test_the_running_generator_is_described_by_its_own_record() -> None:
    record = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    assert current_source() == source_of(record)
