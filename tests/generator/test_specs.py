"""mcp_schemagen/load/specs.py: getting a pinned schema over HTTP, verifying it, caching it, patching it.

A local HTTP server on 127.0.0.1 serves a temporary copy of ../shared/specs laid out as
``REV/schema.json`` and is set as ``MCP_CODEGEN_SPEC_MIRROR``. Each revision's upstream
URL is pointed at the same server (a path it does not serve), so no test can reach the
network. ``load`` and ``pinned_revisions`` are cached per process: the caches are cleared
around every test.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.cli import main
from mcp_schemagen.load import specs
from mcp_schemagen.load.specs import Patch, SpecError
from tests.support.paths import SHARED_SPECS, needs_shared
from tests.support.projects import FAST_REVISIONS, run_cli, tool, write_project

pytestmark = needs_shared

REVISION = "2025-06-18"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass(frozen=True)
class Mirror:
    url: str
    root: Path

    def file(self, revision: str) -> Path:
        return self.root / revision / "schema.json"

    def location(self, revision: str) -> str:
        return f"{self.url}/{revision}/schema.json"


def _clear_caches() -> None:
    specs.load.cache_clear()
    specs.pinned_revisions.cache_clear()
    specs.patches.cache_clear()


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    _clear_caches()
    yield
    _clear_caches()


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Mirror]:
    root = tmp_path / "mirror"
    for revision in specs.revision_names():
        target = root / revision / "schema.json"
        target.parent.mkdir(parents=True)
        shutil.copyfile(SHARED_SPECS / revision / "schema.json", target)
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    for variable in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv(specs.MIRROR_ENV, url)
    monkeypatch.setenv(specs.CACHE_ENV, str(tmp_path / "cache"))
    # Upstream on the same server, under a path it does not serve: never the network.
    pinned = tuple(
        replace(r, upstream_url=f"{url}/upstream/{r.name}/schema.json")
        for r in specs.pinned_revisions()
    )
    monkeypatch.setattr(specs, "pinned_revisions", lambda: pinned)
    try:
        yield Mirror(url=url, root=root)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_good_fetch_is_verified_and_cached(mirror: Mirror) -> None:
    loaded = specs.load(REVISION)
    assert loaded.source == mirror.location(REVISION)
    assert loaded.revision.name == REVISION
    cached = specs.cached_path(loaded.revision)
    assert cached.read_bytes() == mirror.file(REVISION).read_bytes()
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == loaded.revision.sha256
    assert specs.availability(loaded.revision) == f"cache {cached}"

    # The mirror gone, the cache answers.
    mirror.file(REVISION).unlink()
    specs.load.cache_clear()
    again = specs.load(REVISION)
    assert again.source == str(cached)
    assert again.document == loaded.document


def test_corrupted_file_is_refused_and_not_cached(mirror: Mirror) -> None:
    target = mirror.file(REVISION)
    target.write_bytes(target.read_bytes().replace(b'"description"', b'"Description"', 1))
    with pytest.raises(SpecError) as caught:
        specs.load(REVISION)
    message = str(caught.value)
    assert REVISION in message
    assert mirror.location(REVISION) in message
    assert hashlib.sha256(target.read_bytes()).hexdigest() in message
    assert f"mcp-codegen specs pull {REVISION}" in message
    assert not specs.cached_path(specs.get_revision(REVISION)).exists()
    assert not any(specs.cache_dir().rglob("*.json"))


def test_corrupted_cache_is_refused(mirror: Mirror, monkeypatch: pytest.MonkeyPatch) -> None:
    cached = specs.cached_path(specs.get_revision(REVISION))
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"{}")
    monkeypatch.delenv(specs.MIRROR_ENV)
    with pytest.raises(SpecError, match=f"protocol revision {REVISION}: {cached}"):
        specs.load(REVISION)


def test_absent_file_names_what_was_tried_and_what_to_do(mirror: Mirror) -> None:
    mirror.file(REVISION).unlink()
    revision = specs.get_revision(REVISION)
    with pytest.raises(SpecError) as caught:
        specs.load(REVISION)
    message = str(caught.value)
    assert f"protocol revision {REVISION} is not available" in message
    assert mirror.location(REVISION) in message
    assert "HTTP 404" in message
    assert f"{specs.cached_path(revision)} (not found)" in message
    assert revision.upstream_url in message
    assert f"mcp-codegen specs pull {REVISION}" in message
    assert specs.MIRROR_ENV in message
    assert not specs.cached_path(revision).exists()


def test_unknown_revision(mirror: Mirror) -> None:
    with pytest.raises(SpecError) as caught:
        specs.load("1999-01-01")
    message = str(caught.value)
    assert "unknown protocol revision '1999-01-01'" in message
    assert all(name in message for name in specs.revision_names())


def test_folder_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(specs.MIRROR_ENV, str(SHARED_SPECS))
    monkeypatch.setenv(specs.CACHE_ENV, str(tmp_path / "cache"))
    loaded = specs.load(REVISION)
    assert loaded.source == str(SHARED_SPECS / REVISION / "schema.json")
    assert specs.availability(loaded.revision) == f"mirror {loaded.source}"


# --- patches --------------------------------------------------------------------------


def _document() -> dict[str, Any]:
    return {
        "$defs": {
            "A": {"properties": {"n": {"type": "integer"}}, "anyOf": [{"type": "string"}]},
            "a/b~c": {"type": "integer"},
        }
    }


def _apply(monkeypatch: pytest.MonkeyPatch, *patches: Patch) -> dict[str, Any]:
    monkeypatch.setattr(specs, "patches", lambda: patches)
    return specs.apply_patches(specs.get_revision(REVISION), _document())


def test_patch_replaces_the_expected_value(monkeypatch: pytest.MonkeyPatch) -> None:
    document = _apply(
        monkeypatch,
        Patch(REVISION, "/$defs/A/properties/n/type", "integer", "number"),
        Patch(REVISION, "/$defs/a~1b~0c/type", "integer", "string"),
        Patch(REVISION, "/$defs/A/anyOf/0", {"type": "string"}, {"type": "null"}),
        Patch("2024-11-05", "/$defs/A/properties/n/type", "not this revision", "x"),
    )
    assert document["$defs"]["A"]["properties"]["n"]["type"] == "number"
    assert document["$defs"]["a/b~c"]["type"] == "string"
    assert document["$defs"]["A"]["anyOf"] == [{"type": "null"}]


@pytest.mark.parametrize(
    ("pointer", "expect"),
    [
        pytest.param("/$defs/A/properties/n/type", "number", id="other value"),
        pytest.param("/$defs/A/properties/n/type", ["integer"], id="other type"),
        pytest.param("/$defs/A/properties/n/minimum", 0, id="absent key"),
        pytest.param("/$defs/B/properties/n/type", "integer", id="absent parent"),
        pytest.param("/$defs/A/properties/n/type/x", "integer", id="through a string"),
        pytest.param("/$defs/A/anyOf/3/type", "string", id="index out of range"),
        pytest.param("/$defs/A/anyOf/first/type", "string", id="index not a number"),
    ],
)
def test_patch_whose_expected_value_is_not_found_raises(
    monkeypatch: pytest.MonkeyPatch, pointer: str, expect: Any
) -> None:
    with pytest.raises(SpecError) as caught:
        _apply(monkeypatch, Patch(REVISION, pointer, expect, "replacement"))
    message = str(caught.value)
    assert REVISION in message
    assert pointer in message
    assert json.dumps(expect) in message
    assert "specs/patches.toml" in message


def test_patch_expectation_is_type_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1 == True and 1 == 1.0 in Python, but they are different JSON values.
    monkeypatch.setattr(specs, "patches", lambda: (Patch(REVISION, "/$defs/A/x", True, False),))
    document = _document()
    document["$defs"]["A"]["x"] = 1
    with pytest.raises(SpecError):
        specs.apply_patches(specs.get_revision(REVISION), document)


def test_real_patches_apply() -> None:
    names = set(specs.revision_names())
    all_patches = specs.patches()
    assert all_patches, "specs/patches.toml is expected to hold patches"
    for patch in all_patches:
        assert patch.revision in names, patch
        raw = json.loads((SHARED_SPECS / patch.revision / "schema.json").read_bytes())
        loaded = specs.load(patch.revision).document
        assert _at(raw, patch.pointer) == patch.expect
        assert _at(loaded, patch.pointer) == patch.replace


def _at(document: Any, pointer: str) -> Any:
    node = document
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


# --- unavailable revisions ------------------------------------------------------------


def _remove(mirror: Mirror, *revisions: str) -> None:
    for revision in revisions:
        mirror.file(revision).unlink()


@pytest.mark.parametrize("listed", [True, False], ids=["revisions listed", "default revisions"])
def test_a_build_reports_every_unavailable_revision_at_the_key_that_chose_it(
    mirror: Mirror, tmp_path: Path, listed: bool
) -> None:
    missing = ("2025-03-26", "2025-11-25")
    _remove(mirror, *missing)
    revisions = specs.revision_names() if listed else FAST_REVISIONS
    root = write_project(tmp_path / "p", {"echo.json": tool()}, revisions=revisions)
    if not listed:
        settings = (root / "pyproject.toml").read_text(encoding="utf-8")
        lines = [line for line in settings.splitlines() if not line.startswith("revisions")]
        (root / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    errors = [line for line in err.splitlines() if ": error: " in line]
    # One error for both: the same cause and cure, said once, naming each revision.
    assert len(errors) == 1, err
    pointer = "/tool/mcp-codegen/revisions" if listed else "/tool/mcp-codegen"
    (line,) = errors
    assert line.startswith(
        f"{root / 'pyproject.toml'}#{pointer}: error: protocol revisions 2025-03-26, 2025-11-25"
        " are not available. Tried, for each: "
    ), line
    assert "<revision>/schema.json (" in line and "Connect to the internet" in line
    assert line.count("Connect to the internet") == 1
    assert "mcp-codegen specs pull 2025-03-26 2025-11-25`" in line
    if not listed:
        assert "has no `revisions` key; add one" in err
    assert not (root / "server").exists()


def test_specs_pull_goes_on_past_a_failure_and_reports_all(
    mirror: Mirror, capsys: pytest.CaptureFixture[str]
) -> None:
    _remove(mirror, "2024-11-05", "2025-11-25")
    code = main(["specs", "pull"])
    out, err = capsys.readouterr()
    assert code == 2
    fetched = [n for n in specs.revision_names() if n not in ("2024-11-05", "2025-11-25")]
    assert [line.split(":")[0] for line in out.splitlines()] == fetched
    for name in fetched:
        assert specs.cached_path(specs.get_revision(name)).is_file()
    assert "protocol revisions 2024-11-05, 2025-11-25 are not available. Tried, for each:" in err
    assert err.count("Connect to the internet") == 1
    total = len(specs.revision_names())
    assert err.endswith(f"2 of {total} revision(s) not available: 2024-11-05, 2025-11-25\n")


@needs_shared
def test_2024_10_07_is_a_schema_jsonschema_rs_compiles_once_patched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jsonschema_rs

    monkeypatch.setenv(specs.MIRROR_ENV, str(SHARED_SPECS))
    monkeypatch.setenv(specs.CACHE_ENV, str(tmp_path / "cache"))
    published = json.loads((SHARED_SPECS / "2024-10-07" / "schema.json").read_text())
    patched = specs.load("2024-10-07").document
    hints = {"hints": [{"name": "claude"}]}
    root = {"$ref": "#/definitions/ModelPreferences"}
    # As published, "#/definitions/Record<string,string>" is no URI reference: the whole
    # document is refused, whatever definition one validates against.
    with pytest.raises(jsonschema_rs.ValidationError, match="Record<string,string>"):
        jsonschema_rs.Draft7Validator({**published, **root})
    validator = jsonschema_rs.Draft7Validator({**patched, **root})
    assert validator.is_valid(hints) and not validator.is_valid({"hints": [1]})


def test_a_first_run_offline_explains_once_for_every_revision(
    mirror: Mirror, tmp_path: Path
) -> None:
    """No mirror, no cache, no network: the ~600-character explanation once, listing the
    revisions, not once per revision."""
    for revision in specs.revision_names():
        mirror.file(revision).unlink()
    root = write_project(tmp_path / "p", {"echo.json": tool()}, revisions=specs.revision_names())
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2
    assert err.count("Connect to the internet") == 1, err
    listed = ", ".join(specs.revision_names())
    assert f"protocol revisions {listed} are not available" in err
    assert f"mcp-codegen specs pull {' '.join(specs.revision_names())}`" in err


def test_new_offline_with_an_empty_cache_names_the_users_files(
    mirror: Mirror, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for revision in specs.revision_names():
        mirror.file(revision).unlink()
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("new", "cold_server", "--revision", REVISION)
    assert code == 2, out
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert errors, err
    for line in errors:
        assert line.startswith("cold_server/pyproject.toml#/tool/mcp-codegen"), line
    assert err.count("is not available") + err.count("are not available") == 1, err
    assert ".new" not in err and "cold_server." not in err
    assert not (tmp_path / "cold_server").exists()
    assert {p.name for p in tmp_path.iterdir()} <= {"mirror", "cache"}, "nothing left behind"
