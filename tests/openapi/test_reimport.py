"""Re-importing a changed document into a project someone has worked on: curated (a tool
renamed, a parameter fixed, an operation skipped), built, handler bodies written, committed.
The API then changes (a required parameter added, an operation removed, a response
changed): the re-import keeps every curation, the build keeps every body the user wrote
(the removed tool's handler moved to the orphaned section, not lost), and `mcp-codegen
breaking` says what the change does to the MCP contract."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.support.projects import mypy_strict, run_cli, write_project

DOCUMENTS = Path(__file__).parent / "documents"

CURATION = """\
# openapi-curation.yaml
operations:
  findPets:
    name: list_pets
    description: The pets of the store, at most twenty.
    fixed: {limit: 20}
  deletePet:
    skip: true
"""

# Bodies the user wrote in place of the stubs.
LIST_PETS = (
    "    pets = await upstream.list_pets(tags=tags)\n"
    "    return pets  # reviewed: the store never has more than twenty\n"
)
FIND_PET = "    return await upstream.find_pet_by_id(id=id)  # cached upstream, keep\n"
ADD_PET = "    raise ValueError('adding pets is disabled for now')\n"
MINE = "    return 'mine, by hand'\n"


def _git(root: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *arguments],
        check=True,
        capture_output=True,
    )


def _read(root: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / "tools" / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _replace_body(text: str, function: str, body: str) -> str:
    """``function``'s body (all but its docstring) replaced by ``body``, as an editor would."""
    (node,) = [
        n
        for n in ast.parse(text).body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function
    ]
    statements = node.body
    if isinstance(statements[0], ast.Expr) and isinstance(statements[0].value, ast.Constant):
        statements = statements[1:]  # the docstring stays
    lines = text.splitlines(keepends=True)
    first, last = statements[0].lineno - 1, statements[-1].end_lineno or statements[-1].lineno
    return "".join([*lines[:first], body, *lines[last:]])


def _import(root: Path) -> str:
    code, _, err = run_cli("import", "openapi", str(root / "petstore.yaml"), "--dir", str(root))
    assert code == 0, err
    return err


def _build(root: Path) -> str:
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    return err


def test_a_re_import_keeps_curation_and_handler_bodies_and_breaking_says_what_changed(
    tmp_path: Path,
) -> None:
    mine = {"name": "mine", "inputSchema": {"type": "object"}}
    root = write_project(tmp_path / "project", {"mine.json": mine}, revisions=("2025-11-25",))
    shutil.copy(DOCUMENTS / "petstore-expanded.yaml", root / "petstore.yaml")
    (root / "openapi-curation.yaml").write_text(CURATION, encoding="utf-8")
    handlers = root / "server" / "handlers.py"
    _build(root)  # a project with a handler module already: the import's stubs are merged in
    handlers.write_text(_replace_body(handlers.read_text(), "mine", MINE), encoding="utf-8")

    assert "imported 3 of 4 operations" in _import(root)
    _build(root)
    text = handlers.read_text(encoding="utf-8")
    assert "from .types import upstream\n" in text  # added by the merge with the new stubs
    assert "    return await upstream.list_pets(tags=tags)\n" in text  # the one-line stub
    text = _replace_body(text, "list_pets", LIST_PETS)
    text = _replace_body(text, "find_pet_by_id", FIND_PET)
    text = _replace_body(text, "addPet", ADD_PET)
    handlers.write_text(text, encoding="utf-8")
    _build(root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "curated and written")

    # The API changes: findPets gains a required query parameter, addPet goes away, and a
    # pet's answer loses its tag and gains a nickname.
    document = yaml.safe_load((root / "petstore.yaml").read_text(encoding="utf-8"))
    document["paths"]["/pets"]["get"]["parameters"].append(
        {"name": "owner", "in": "query", "required": True, "schema": {"type": "string"}}
    )
    del document["paths"]["/pets"]["post"]
    document["paths"]["/pets/{id}"]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ] = {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer", "format": "int64"},
            "name": {"type": "string"},
            "nickname": {"type": "string"},
        },
        "additionalProperties": False,
    }
    (root / "petstore.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    said = _import(root)
    assert "imported 2 of 3 operations" in said
    assert "project/tools/addPet.json: no longer in the document or selection" in said

    # Every curation kept: the file untouched, the name, description and fixed value applied,
    # the skipped operation still not imported.
    assert (root / "openapi-curation.yaml").read_text(encoding="utf-8") == CURATION
    assert sorted(p.stem for p in (root / "tools").glob("*.json")) == [
        "find_pet_by_id",
        "list_pets",
        "mine",
    ]
    listed = _read(root, "list_pets")
    assert listed["description"] == "The pets of the store, at most twenty."
    assert listed["inputSchema"]["required"] == ["owner"]
    assert set(listed["inputSchema"]["properties"]) == {"tags", "owner"}  # limit stays hidden
    assert listed["x-mcp-codegen-http"]["fixed"] == [{"in": "query", "name": "limit", "value": 20}]

    # Every body the user wrote kept; signatures follow the document.
    _build(root)
    text = handlers.read_text(encoding="utf-8")
    for body in (LIST_PETS, FIND_PET, MINE, ADD_PET):
        assert body in text
    assert "async def list_pets(*, owner: str, tags: list[str] | None = None)" in text
    orphans = text.index("orphaned handlers")
    assert text.index("def addPet(") > orphans and text.index(ADD_PET) > orphans
    # The typed call shows where the user's own code must follow the API: their wrapped
    # body does not pass the new required argument.
    checked = mypy_strict(root, "server")
    assert checked.returncode == 1
    assert 'error: Missing named argument "owner" for "list_pets"' in checked.stdout
    handlers.write_text(text.replace("list_pets(tags=tags)", "list_pets(owner=owner, tags=tags)"))
    checked = mypy_strict(root, "server")
    assert checked.returncode == 0, checked.stdout + checked.stderr

    code, out, _ = run_cli("breaking", "--against", "HEAD", str(root))
    assert code == 1
    report = out.splitlines()
    for expected in (
        "tools/addPet.json: breaking (callers): tool 'addPet' removed",
        "tools/list_pets.json#/inputSchema/required: breaking (callers): 'owner' is now required",
        # A consumer that reads the answer's tag no longer gets it.
        "tools/find_pet_by_id.json#/outputSchema/properties/tag: breaking (result consumers): "
        "property 'tag' removed, and additionalProperties false now refuses it: no longer "
        "promised; a consumer that reads 'tag' no longer gets it",
        # Results could carry any key: declaring one only promises more.
        "tools/find_pet_by_id.json#/outputSchema/properties/nickname: compatible: property "
        "'nickname' added where any key was accepted: a result that carried {\"nickname\": 0} "
        "is no longer sent; consumers still read every result",
    ):
        assert any(expected in line for line in report), (expected, out)
