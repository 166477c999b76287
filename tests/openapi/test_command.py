"""`mcp-codegen import openapi` as a user runs it: tool files written where the project's
globs find them, a curation file kept across re-imports of a changed document, files of
the user's never touched, stale imported files removed, `breaking` telling what changed."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.support.projects import run_cli, write_project

DOCUMENTS = Path(__file__).parent / "documents"


def _project(tmp_path: Path) -> Path:
    root = write_project(
        tmp_path / "project", {"mine.json": {"name": "mine", "inputSchema": {"type": "object"}}}
    )
    shutil.copy(DOCUMENTS / "petstore-expanded.yaml", root / "petstore.yaml")
    return root


def _read(root: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / "tools" / f"{name}.json").read_text(encoding="utf-8"))
    return data


CURATION = """\
operations:
  findPets:
    name: list_pets
    description: The pets of the store, at most twenty.
    fixed: {limit: 20}
  deletePet:
    skip: true
"""


def test_curation_is_kept_when_a_changed_document_is_imported_again(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "openapi-curation.yaml").write_text(CURATION, encoding="utf-8")
    code, _, err = run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))
    assert code == 0, err
    assert "imported 3 of 4 operations" in err
    names = sorted(p.stem for p in (root / "tools").glob("*.json"))
    assert names == ["addPet", "find_pet_by_id", "list_pets", "mine"]
    listed = _read(root, "list_pets")
    assert listed["description"] == "The pets of the store, at most twenty."
    assert set(listed["inputSchema"]["properties"]) == {"tags"}  # limit is fixed, hidden
    assert listed["x-mcp-codegen-http"]["fixed"] == [{"in": "query", "name": "limit", "value": 20}]

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "one",
        ],
        check=True,
    )

    # The API changes: findPets gains a required query parameter, addPet goes away.
    document = yaml.safe_load((root / "petstore.yaml").read_text(encoding="utf-8"))
    document["paths"]["/pets"]["get"]["parameters"].append(
        {"name": "owner", "in": "query", "required": True, "schema": {"type": "string"}}
    )
    del document["paths"]["/pets"]["post"]
    (root / "petstore.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    code, _, err = run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))
    assert code == 0, err
    assert "removed" in err and "addPet.json" in err
    names = sorted(p.stem for p in (root / "tools").glob("*.json"))
    assert names == ["find_pet_by_id", "list_pets", "mine"]
    listed = _read(root, "list_pets")
    assert listed["description"] == "The pets of the store, at most twenty."
    assert set(listed["inputSchema"]["properties"]) == {"tags", "owner"}
    assert listed["inputSchema"]["required"] == ["owner"]
    assert (root / "openapi-curation.yaml").read_text(encoding="utf-8") == CURATION

    code, out, _ = run_cli("breaking", "--against", "HEAD", str(root))
    assert code == 1
    assert "tools/addPet.json" in out and "removed" in out
    assert "tools/list_pets.json#/inputSchema/required" in out


def test_a_file_of_the_users_is_never_replaced(tmp_path: Path) -> None:
    root = _project(tmp_path)
    mine = {"name": "deletePet", "inputSchema": {"type": "object"}}
    (root / "tools" / "deletePet.json").write_text(json.dumps(mine), encoding="utf-8")
    code, _, err = run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))
    assert code == 0, err
    assert json.loads((root / "tools" / "deletePet.json").read_text(encoding="utf-8")) == mine
    assert _read(root, "deletePet_2")["x-mcp-codegen-http"]["method"] == "DELETE"


def test_a_bad_curation_file_stops_with_its_pointer(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "openapi-curation.yaml").write_text(
        "operations:\n  findPets: {rename: x}\n  addPet: {name: add a pet}\n", encoding="utf-8"
    )
    code, _, err = run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))
    assert code == 2
    assert "openapi-curation.yaml#/operations/findPets: error: unknown rename" in err
    assert "openapi-curation.yaml#/operations/addPet/name: error: 'add a pet': 1 to 64" in err
    assert not (root / "tools" / "addPet.json").exists()


def test_swagger_2_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    root = _project(tmp_path)
    code, _, err = run_cli(
        "import", "openapi", str(DOCUMENTS / "swagger2-petstore.json"), "--dir", str(root)
    )
    assert code == 2
    assert "#/swagger: error: Swagger 2.0 (OpenAPI 2.0) is not imported" in err
    assert sorted(p.name for p in (root / "tools").iterdir()) == ["mine.json"]


def test_help_answers() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "import", "openapi", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for option in ("--tags", "--paths", "--operations", "--curation", "Swagger 2.0", "64"):
        assert option in shown


def test_a_handler_body_the_user_wrote_survives_a_re_import(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "tools" / "mine.json").unlink()
    assert run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))[0] == 0
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    # The stub is one line; `upstream` comes with the types, in the import the merge owns.
    stub = "    return await upstream.deletePet(id=id)\n"
    assert stub in text
    assert "\nfrom .types import upstream\n" in text  # read at run time: a plain import
    for handler in ast.parse(text).body:
        if isinstance(handler, ast.AsyncFunctionDef):  # a docstring and the one line
            assert len(handler.body) == 2 and isinstance(handler.body[1], ast.Return)
    wrapped = "    result = await upstream.deletePet(id=id)\n    return result  # audited\n"
    handlers.write_text(text.replace(stub, wrapped), encoding="utf-8")

    document = yaml.safe_load((root / "petstore.yaml").read_text(encoding="utf-8"))
    document["paths"]["/pets/{id}"]["delete"]["parameters"].append(
        {"name": "reason", "in": "query", "schema": {"type": "string"}}
    )
    (root / "petstore.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    assert run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))[0] == 0
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    text = handlers.read_text(encoding="utf-8")
    assert wrapped in text  # the body as the user left it
    assert "async def deletePet(*, id: int, reason: str | None = None)" in text  # signature updated
    upstream = (root / "server" / "_upstream.py").read_text(encoding="utf-8")
    assert '"reason": reason' in upstream


def test_the_http_identity_is_never_published(tmp_path: Path) -> None:
    from mcp_schemagen.runtime.protocol import REVISIONS

    root = _project(tmp_path)
    assert run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))[0] == 0
    definition = _read(root, "addPet")
    for revision in REVISIONS:
        published, _ = revision.publish_tool(definition)
        assert "x-mcp-codegen-http" not in published and "inputSchema" in published


def test_real_documents_import_build_and_type_check_in_one_project(tmp_path: Path) -> None:
    from tests.support.projects import mypy_strict

    root = write_project(tmp_path / "project", {}, revisions=("2025-06-18", "2026-07-28"))
    imported = {}
    for name in ("petstore-expanded.yaml", "uspto.yaml", "swagger-petstore-3.yaml"):
        code, _, err = run_cli("import", "openapi", str(DOCUMENTS / name), "--dir", str(root))
        assert code == 0, err
        imported[name] = next(line for line in err.splitlines() if " operations of " in line)
    assert "imported 4 of 4 operations" in imported["petstore-expanded.yaml"]
    assert "imported 3 of 3 operations" in imported["uspto.yaml"]
    assert "imported 18 of 19 operations" in imported["swagger-petstore-3.yaml"]
    # Both petstores have addPet: the second import's is made unique.
    assert _read(root, "addPet_2")["x-mcp-codegen-http"]["api"] == "swagger_petstore_openapi_3_0"
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    checked = mypy_strict(root, "server")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_same_files_from_any_working_folder(tmp_path: Path, monkeypatch: Any) -> None:
    root = _project(tmp_path)
    monkeypatch.chdir(root)
    assert run_cli("import", "openapi", "petstore.yaml")[0] == 0
    assert _read(root, "addPet")["x-mcp-codegen-http"]["from"] == "petstore.yaml#/paths/~1pets/post"
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))
    assert code == 0 and "(0 written, 4 unchanged, 0 removed, 0 not imported)" in err


def test_a_tool_named_upstream_does_not_hide_the_generated_calls(tmp_path: Path) -> None:
    from tests.support.projects import mypy_strict

    root = write_project(tmp_path / "project", {})
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Relay", "version": "1"},
        "servers": [{"url": "https://relay.invalid"}],
        "paths": {
            "/up": {"get": {"operationId": "upstream", "responses": {"204": {"description": "ok"}}}}
        },
    }
    (root / "relay.json").write_text(json.dumps(document), encoding="utf-8")
    assert run_cli("import", "openapi", str(root / "relay.json"), "--dir", str(root))[0] == 0
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    handlers = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert "async def upstream_() -> ToolReturn:" in handlers
    assert "    return await upstream.upstream_()\n" in handlers
    checked = mypy_strict(root, "server")
    assert checked.returncode == 0, checked.stdout + checked.stderr
