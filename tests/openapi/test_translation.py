"""The translation rules of `mcp-codegen import openapi`, each on a small document: schemas
(3.0 -> 2020-12), inputs, outputs, annotations, names, selection, curation, and what is
refused or skipped (with file#/pointer), never blocking the other operations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcp_schemagen.diagnostics import BuildError
from mcp_schemagen.openapi.importer import ImportPlan, plan_import
from mcp_schemagen.openapi.names import MAX_NAME
from mcp_schemagen.openapi.operations import Selection

DOCUMENTS = Path(__file__).parent / "documents"


def document(
    paths: dict[str, Any], schemas: dict[str, Any] | None = None, **top: Any
) -> dict[str, Any]:
    return {
        "openapi": top.pop("openapi", "3.0.3"),
        "info": {"title": "Demo API", "version": "1"},
        "servers": [{"url": "https://api.example/v1"}],
        "paths": paths,
        "components": {"schemas": schemas or {}, **top.pop("components", {})},
        **top,
    }


def imported(tmp_path: Path, doc: dict[str, Any], **options: Any) -> ImportPlan:
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    return plan_import(spec, "api.json", tmp_path / "tools", **options)


def tools(plan: ImportPlan) -> dict[str, dict[str, Any]]:
    return {tool.name: tool.definition for tool in plan.tools}


def get(operation_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "get": {"operationId": operation_id, "responses": {"200": {"description": "ok"}}, **fields}
    }


def json_response(schema: Any) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_nullable_becomes_null_in_type_or_an_any_of(tmp_path: Path) -> None:
    schemas = {
        "Tag": {"type": "string", "enum": ["a", "b"], "nullable": True},
        "Owner": {"allOf": [{"$ref": "#/components/schemas/Tag"}], "nullable": True},
    }
    out = json_response({"$ref": "#/components/schemas/Holder"})
    schemas["Holder"] = {
        "type": "object",
        "properties": {
            "tag": {"$ref": "#/components/schemas/Tag"},
            "owner": {"$ref": "#/components/schemas/Owner"},
        },
    }
    plan = imported(
        tmp_path, document({"/h": {"get": {"operationId": "h", "responses": out}}}, schemas)
    )
    output = tools(plan)["h"]["outputSchema"]
    assert output["$defs"]["Tag"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert output["$defs"]["Owner"] == {
        "anyOf": [{"allOf": [{"$ref": "#/$defs/Tag"}]}, {"type": "null"}]
    }
    validator = jsonschema.Draft202012Validator(output)
    assert validator.is_valid({"tag": None, "owner": None})
    assert not validator.is_valid({"tag": "c"})


def test_read_only_leaves_inputs_and_write_only_leaves_outputs(tmp_path: Path) -> None:
    pet = {
        "type": "object",
        "required": ["id", "name", "secret"],
        "properties": {
            "id": {"type": "integer", "readOnly": True},
            "name": {"type": "string"},
            "secret": {"$ref": "#/components/schemas/Secret"},
        },
    }
    schemas = {"Pet": pet, "Secret": {"type": "string", "writeOnly": True}}
    body = {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
    }
    operation = {
        "operationId": "put_pet",
        "requestBody": body,
        "responses": json_response({"$ref": "#/components/schemas/Pet"}),
    }
    definition = tools(imported(tmp_path, document({"/pets": {"put": operation}}, schemas)))[
        "put_pet"
    ]
    # The body is flattened (a plain object whose names collide with nothing).
    assert set(definition["inputSchema"]["properties"]) == {"name", "secret"}
    assert definition["inputSchema"]["required"] == ["name", "secret"]
    assert set(definition["outputSchema"]["properties"]) == {"id", "name"}
    assert definition["outputSchema"]["required"] == ["id", "name"]


def test_discriminator_pins_the_property_in_each_branch(tmp_path: Path) -> None:
    schemas = {
        "Cat": {
            "type": "object",
            "properties": {"kind": {"type": "string"}, "meow": {"type": "boolean"}},
        },
        "Dog": {
            "type": "object",
            "properties": {"kind": {"type": "string"}, "bark": {"type": "boolean"}},
        },
        "Pet": {
            "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
            "discriminator": {
                "propertyName": "kind",
                "mapping": {"dog": "#/components/schemas/Dog"},
            },
        },
    }
    plan = imported(
        tmp_path,
        document(
            {
                "/p": {
                    "get": {
                        "operationId": "p",
                        "responses": json_response({"$ref": "#/components/schemas/Pet"}),
                    }
                }
            },
            schemas,
        ),
    )
    output = tools(plan)["p"]["outputSchema"]
    assert "discriminator" not in output
    validator = jsonschema.Draft202012Validator(output)
    # Both branches accept {"kind": ...} alone: without the pin, oneOf would refuse it.
    assert validator.is_valid({"kind": "dog"}) and validator.is_valid({"kind": "Cat"})
    assert not validator.is_valid({"kind": "horse"})


def test_recursive_and_relative_file_refs_are_kept_as_defs(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text(
        "Node:\n  type: object\n  properties:\n    children:\n      type: array\n"
        "      items: {$ref: '#/Node'}\n    label: {$ref: 'labels.yaml#/Label'}\n",
        encoding="utf-8",
    )
    (tmp_path / "labels.yaml").write_text(
        "Label: {type: string, min_length: 1}\n", encoding="utf-8"
    )
    doc = document(
        {
            "/tree": {
                "get": {
                    "operationId": "tree",
                    "responses": json_response({"$ref": "common.yaml#/Node"}),
                }
            }
        }
    )
    plan = imported(tmp_path, doc)
    output = tools(plan)["tree"]["outputSchema"]
    assert output["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert output["$defs"]["Label"] == {"type": "string", "minLength": 1}
    validator = jsonschema.Draft202012Validator(output)
    assert validator.is_valid({"children": [{"children": [], "label": "x"}]})
    assert not validator.is_valid({"children": [{"label": ""}]})
    # The typo was cleaned with a warning naming the file it is in and the pointer.
    assert [str(w) for w in plan.warnings] == [
        "labels.yaml#/Label/min_length: warning: 'min_length' is not a JSON Schema keyword; "
        "read as 'minLength'"
    ]


def test_messy_keywords_are_cleaned_with_a_warning(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "required": ["a", "a"],
        "properties": {
            "a": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "example": 3}
        },
        "$recursiveAnchor": True,
    }
    plan = imported(
        tmp_path,
        document({"/m": {"get": {"operationId": "m", "responses": json_response(schema)}}}),
    )
    output = tools(plan)["m"]["outputSchema"]
    assert output == {
        "type": "object",
        "required": ["a"],
        "properties": {"a": {"type": "number", "exclusiveMinimum": 0, "examples": [3]}},
    }
    pointers = sorted(w.pointer for w in plan.warnings)
    assert pointers == [
        "/paths/~1m/get/responses/200/content/application~1json/schema/$recursiveAnchor",
        "/paths/~1m/get/responses/200/content/application~1json/schema/required",
    ]


def test_parameters_of_every_location_and_a_colliding_body_under_body(tmp_path: Path) -> None:
    operation = {
        "operationId": "update",
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
            {"name": "id", "in": "query", "schema": {"type": "string"}},
            {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
            {"name": "session", "in": "cookie", "schema": {"type": "string"}},
            {"name": "Accept", "in": "header", "schema": {"type": "string"}},
        ],
        "requestBody": {
            "content": {
                "application/json": {
                    "schema": {"type": "object", "properties": {"X-Trace": {"type": "string"}}}
                }
            }
        },
        "responses": {"204": {"description": "done"}},
    }
    definition = tools(imported(tmp_path, document({"/items/{id}": {"patch": operation}})))[
        "update"
    ]
    properties = definition["inputSchema"]["properties"]
    assert list(properties) == ["path_id", "query_id", "X-Trace", "session", "body"]
    assert definition["inputSchema"]["required"] == ["path_id"]
    assert definition["inputSchema"]["additionalProperties"] is False
    http = definition["x-mcp-codegen-http"]
    assert http["parameters"] == {
        "path_id": {"in": "path", "name": "id"},
        "query_id": {"in": "query", "name": "id"},
        "X-Trace": {"in": "header", "name": "X-Trace"},
        "session": {"in": "cookie", "name": "session"},
        "body": {"in": "body"},
    }
    assert "outputSchema" not in definition


def test_annotations_follow_the_method(tmp_path: Path) -> None:
    ok = {"responses": {"200": {"description": "ok"}}}
    doc = document(
        {"/r": {m: {"operationId": m, **ok} for m in ("get", "head", "put", "delete", "post")}}
    )
    found = {name: d["annotations"] for name, d in tools(imported(tmp_path, doc)).items()}
    assert found["get"]["readOnlyHint"] is True and found["head"]["readOnlyHint"] is True
    assert found["delete"]["destructiveHint"] is True and found["delete"]["readOnlyHint"] is False
    assert found["put"]["idempotentHint"] is True
    assert found["post"]["readOnlyHint"] is False and found["post"]["idempotentHint"] is False


def test_names_are_valid_unique_and_short(tmp_path: Path) -> None:
    long_id = "get" + "VeryLongOperationName" * 5
    doc = document(
        {
            "/a b/{id}": {"get": {"responses": {"200": {"description": "ok"}}}},
            "/x": get("find pet by id"),
            "/y": get("Find-Pet-By-Id!"),
            "/z": get("find_pet_by_id"),
            "/l1": get(long_id + "One"),
            "/l2": get(long_id + "Two"),
        }
    )
    names = [tool.name for tool in imported(tmp_path, doc).tools]
    assert names[0] == "get_a_b_id"
    assert names[1:4] == ["find_pet_by_id", "Find-Pet-By-Id", "find_pet_by_id_2"]
    assert all(len(n) <= MAX_NAME for n in names) and len(names[4]) == MAX_NAME
    assert names[4] != names[5]


def test_selection_by_tags_globs_and_ids(tmp_path: Path) -> None:
    doc = document(
        {
            "/pets": get("listPets", tags=["pets"]),
            "/pets/{id}": {
                "delete": {"operationId": "deletePet", "responses": {"204": {"description": ""}}}
            },
            "/store": get("inventory", tags=["store"]),
        }
    )
    chosen = imported(tmp_path, doc, selection=Selection(tags=("store",), paths=("/pets/*",)))
    assert [t.name for t in chosen.tools] == ["deletePet", "inventory"]
    by_id = imported(tmp_path, doc, selection=Selection(operations=("listPets",)))
    assert [t.name for t in by_id.tools] == ["listPets"]


def test_unsupported_operations_are_skipped_with_pointer_and_advice(tmp_path: Path) -> None:
    multipart = {"content": {"multipart/form-data": {"schema": {"type": "object"}}}}
    doc = document(
        {
            "/upload": {
                "post": {
                    "operationId": "upload",
                    "requestBody": multipart,
                    "responses": {"200": {"description": ""}},
                }
            },
            "/remote": {
                "get": {
                    "operationId": "remote",
                    "responses": json_response({"$ref": "https://example.com/s.yaml#/S"}),
                }
            },
            "/fine": get("fine"),
        }
    )
    plan = imported(tmp_path, doc)
    assert [t.name for t in plan.tools] == ["fine"]
    messages = [str(d) for d in plan.skipped]
    assert messages[0].startswith(
        "api.json#/paths/~1upload/post/requestBody/content: warning: POST /upload (upload) is "
        "not imported: the request body is multipart/form-data: multipart (file upload) bodies"
    )
    assert "write this tool by hand" in messages[0]
    assert (
        "GET /remote (remote) is not imported: https://example.com/s.yaml is not a local file"
        in messages[1]
    )


def test_callbacks_skip_the_operation_of_a_real_document(tmp_path: Path) -> None:
    plan = plan_import(DOCUMENTS / "callback-example.yaml", "callback-example.yaml", tmp_path)
    assert plan.tools == [] and plan.operation_count == 1
    assert str(plan.skipped[0]).startswith(
        "callback-example.yaml#/paths/~1streams/post/callbacks: warning: POST /streams is not "
        "imported: it has callbacks"
    )


def test_swagger_2_is_refused_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(BuildError) as failure:
        plan_import(DOCUMENTS / "swagger2-petstore.json", "swagger2-petstore.json", tmp_path)
    (problem,) = failure.value.diagnostics
    assert str(problem) == (
        "swagger2-petstore.json#/swagger: error: Swagger 2.0 (OpenAPI 2.0) is not imported; "
        "convert it to OpenAPI 3 first, in its folder: `npx swagger2openapi@7.0.8 --patch "
        "swagger2-petstore.json -o swagger2-petstore.openapi.yaml` (--patch mends the small "
        "errors many Swagger documents have), then import swagger2-petstore.openapi.yaml"
    )
    # A name the shell would split is quoted (test_real_documents runs the command).
    spaced = tmp_path / "my api.json"
    spaced.write_bytes((DOCUMENTS / "swagger2-petstore.json").read_bytes())
    with pytest.raises(BuildError) as failure:
        plan_import(spaced, "my api.json", tmp_path)
    assert "--patch 'my api.json' -o 'my api.openapi.yaml'`" in str(failure.value.diagnostics[0])


def test_integer_response_codes_are_read_as_strings(tmp_path: Path) -> None:
    spec = tmp_path / "api.yaml"
    spec.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /n:\n    get:\n"
        "      operationId: n\n      responses:\n        200:\n          description: ok\n"
        "          content: {application/json: {schema: {type: integer}}}\n",
        encoding="utf-8",
    )
    plan = plan_import(spec, "api.yaml", tmp_path / "tools")
    assert tools(plan)["n"]["outputSchema"] == {"type": "integer"}
    assert [w.pointer for w in plan.warnings] == ["/paths/~1n/get/responses/200"]


def test_warnings_beyond_three_of_a_kind_are_counted_in_one_line(tmp_path: Path) -> None:
    operations = "".join(
        f"  /n{i}:\n    get:\n      responses:\n        200: {{description: ok}}\n"
        f"        404: {{description: no}}\n"
        for i in range(3)
    )
    typo = "  /t:\n    get:\n      parameters: [{name: q, in: query, schema: {type: string, min_length: 1}}]\n"
    spec = tmp_path / "api.yaml"
    spec.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n" + operations + typo,
        encoding="utf-8",
    )
    plan = plan_import(spec, "api.yaml", tmp_path / "tools")
    assert len(plan.tools) == 4
    assert [str(w) for w in plan.warnings if "response code" in w.message] == [
        "api.yaml#/paths/~1n0/get/responses/200: warning: response code 200 read as the string "
        "'200'",
        "api.yaml#/paths/~1n0/get/responses/404: warning: response code 404 read as the string "
        "'404'",
        "api.yaml#/paths/~1n1/get/responses/200: warning: response code 200 read as the string "
        "'200'",
        "api.yaml#/paths/~1n1/get/responses/404: warning: response code 404 read as the string "
        "'404' (and 2 more like it, not listed; each cleaned the same way)",
    ]
    # Another kind keeps its own line.
    assert [str(w) for w in plan.warnings if "response code" not in w.message] == [
        "api.yaml#/paths/~1t/get/parameters/0/schema/min_length: warning: 'min_length' is not "
        "a JSON Schema keyword; read as 'minLength'"
    ]


def test_security_schemes_map_to_environment_variables(tmp_path: Path) -> None:
    components = {
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "token": {"type": "http", "scheme": "bearer"},
            "robot": {
                "type": "oauth2",
                "flows": {
                    "clientCredentials": {"tokenUrl": "https://auth.example/token", "scopes": {}}
                },
            },
            "user": {
                "type": "oauth2",
                "flows": {
                    "authorizationCode": {"authorizationUrl": "a", "tokenUrl": "t", "scopes": {}}
                },
            },
        }
    }
    doc = document(
        {"/s": get("s")},
        components=components,
        security=[{"key": []}, {"token": []}, {"robot": ["read"]}, {"user": []}],
    )
    plan = imported(tmp_path, doc)
    security = tools(plan)["s"]["x-mcp-codegen-http"]["security"]
    assert security == [
        [{"type": "apiKey", "in": "header", "name": "X-Key", "env": ["DEMO_API_KEY"]}],
        [{"type": "bearer", "env": ["DEMO_API_TOKEN_TOKEN"]}],
        [
            {
                "type": "oauth2",
                "tokenUrl": "https://auth.example/token",
                "scopes": ["read"],
                "env": ["DEMO_API_ROBOT_CLIENT_ID", "DEMO_API_ROBOT_CLIENT_SECRET"],
            }
        ],
    ]
    (said,) = plan.warnings  # once for the scheme
    assert "only the OAuth 2 client credentials flow" in str(said)


def test_real_documents_import_every_operation(tmp_path: Path) -> None:
    counts = {}
    for name in ("petstore-expanded.yaml", "petstore.yaml", "uspto.yaml"):
        plan = plan_import(DOCUMENTS / name, name, tmp_path / name)
        counts[name] = (len(plan.tools), plan.operation_count, len(plan.skipped))
        for tool in plan.tools:
            for key in ("inputSchema", "outputSchema"):
                if key in tool.definition:
                    jsonschema.Draft202012Validator.check_schema(tool.definition[key])
    assert counts == {
        "petstore-expanded.yaml": (4, 4, 0),
        "petstore.yaml": (3, 3, 0),
        "uspto.yaml": (3, 3, 0),
    }


BROKEN_OPERATIONS: list[dict[str, Any]] = [
    {"get": {"operationId": "a", "parameters": "x", "responses": {}}},
    {"get": {"operationId": "b", "parameters": [5], "responses": {}}},
    {"get": {"operationId": "c", "responses": []}},
    {"post": {"operationId": "d", "requestBody": 5, "responses": {}}},
    {"get": {"operationId": "e", "responses": json_response({"type": "object", "properties": []})}},
    {"get": {"operationId": "f", "responses": json_response(5)}},
    {"get": {"operationId": "g", "responses": json_response({"$ref": "#/nope"})}},
    {
        "get": {
            "operationId": "h",
            "security": "x",
            "servers": [{"url": 5, "variables": []}],
            "responses": {},
        }
    },
    {"get": {"operationId": "i", "responses": json_response({"type": 5})}},
    {
        "get": {
            "operationId": "j",
            "responses": json_response(
                {"oneOf": "x", "discriminator": {"propertyName": "t", "mapping": {"a": 5}}}
            ),
        }
    },
    {
        "post": {
            "operationId": "k",
            "requestBody": {"content": {"application/json": 5}},
            "responses": {},
        }
    },
]


def test_a_broken_operation_never_stops_the_others(tmp_path: Path) -> None:
    paths = {f"/p{i}": item for i, item in enumerate(BROKEN_OPERATIONS)} | {"/fine": get("fine")}
    plan = imported(tmp_path, document(paths))
    assert "fine" in tools(plan)
    # Every operation is either imported with schemas valid for the build, or skipped
    # with a message naming it: never an exception out of the import.
    said = {d.message.split(" is not imported")[0] for d in plan.skipped}
    for index, item in enumerate(BROKEN_OPERATIONS):
        ((method, operation),) = item.items()
        named = f"{method.upper()} /p{index} ({operation['operationId']})"
        assert (operation["operationId"] in tools(plan)) != (named in said), named
    for definition in tools(plan).values():
        for key in ("inputSchema", "outputSchema"):
            if key in definition:
                jsonschema.Draft202012Validator.check_schema(definition[key])
    assert {"e", "f", "g", "i"} <= {name.split("(")[1].rstrip(")") for name in said}


def test_openapi_3_1_schemas_keep_their_2020_12_meaning(tmp_path: Path) -> None:
    schemas = {
        "Name": {"type": ["string", "null"], "examples": ["Ada"]},
        "Person": {
            "type": "object",
            "properties": {
                "name": {
                    "$ref": "#/components/schemas/Name",
                    "description": "what they are called",
                },
                "age": {"type": "integer", "exclusiveMinimum": 0, "example": 7},
            },
        },
    }
    doc = document(
        {
            "/p": {
                "get": {
                    "operationId": "p",
                    "responses": json_response({"$ref": "#/components/schemas/Person"}),
                }
            }
        },
        schemas,
        openapi="3.1.0",
    )
    output = tools(imported(tmp_path, doc))["p"]["outputSchema"]
    assert output["properties"] == {
        "name": {"$ref": "#/$defs/Name", "description": "what they are called"},
        "age": {"type": "integer", "exclusiveMinimum": 0, "examples": [7]},
    }
    assert output["$defs"] == {"Name": {"type": ["string", "null"], "examples": ["Ada"]}}


def test_a_schema_beyond_the_budget_is_cut_nearest_defs_first(tmp_path: Path) -> None:
    from mcp_schemagen.openapi.document import read_document
    from mcp_schemagen.openapi.schemas import Translation

    filler = {f"field{i}": {"type": "string", "description": "x" * 40} for i in range(20)}
    schemas = {
        "Near": {"type": "object", "properties": {"far": {"$ref": "#/components/schemas/Far"}}},
        "Far": {"type": "object", "properties": filler},
    }
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(document({}, schemas)), encoding="utf-8")
    doc = read_document(spec, "api.json")
    translation = Translation("3.0", "output", "api.json", doc.scope.base)
    root = {"type": "object", "properties": {"near": {"$ref": "#/components/schemas/Near"}}}
    translated = translation.schema(root, doc.scope, "/x")
    whole = translation.finish(translated)
    assert set(whole["$defs"]) == {"Near", "Far"} and translation.cut == []
    small = translation.finish(translated, budget=400)
    assert translation.cut == ["Far"]
    assert small["$defs"]["Near"] == whole["$defs"]["Near"]
    assert small["$defs"]["Far"] == {
        "description": "Cut by mcp-codegen import (schema budget): api.json#/components/schemas/Far"
    }
    assert len(json.dumps(small)) < 600


def test_operations_in_files_of_their_own_as_digitalocean_writes_them(tmp_path: Path) -> None:
    """DigitalOcean's document (659 operations) keeps each operation in a file of its own,
    `get: {$ref: resources/x.yml}`, with refs relative to that file, `properties` given by
    $ref, and unquoted YAML dates in examples."""
    specs = tmp_path / "specs"
    (specs / "resources" / "keys").mkdir(parents=True)
    (specs / "shared").mkdir()
    (specs / "api.yaml").write_text(
        "openapi: 3.0.0\ninfo: {title: Cloud, version: '2'}\n"
        "servers: [{url: 'https://api.cloud.example'}]\npaths:\n"
        "  /v2/keys/{key_id}:\n    get:\n      $ref: resources/keys/keys_get.yml\n"
        "    delete:\n      $ref: resources/keys/missing.yml\n",
        encoding="utf-8",
    )
    (specs / "resources" / "keys" / "keys_get.yml").write_text(
        "operationId: keys_get\nparameters:\n  - $ref: 'parameters.yml#/key_id'\n"
        "responses:\n  '200':\n    $ref: '../../shared/key_response.yml'\n",
        encoding="utf-8",
    )
    (specs / "resources" / "keys" / "parameters.yml").write_text(
        "key_id: {name: key_id, in: path, required: true, schema: {type: integer}}\n",
        encoding="utf-8",
    )
    (specs / "shared" / "key_response.yml").write_text(
        "description: the key\ncontent:\n  application/json:\n    schema:\n"
        "      type: object\n      properties:\n        $ref: 'key_properties.yml'\n",
        encoding="utf-8",
    )
    (specs / "shared" / "key_properties.yml").write_text(
        "created_at: {type: string, format: date-time, example: 2020-01-01T00:00:00Z}\n",
        encoding="utf-8",
    )
    plan = plan_import(specs / "api.yaml", "specs/api.yaml", tmp_path / "tools")
    definition = tools(plan)["keys_get"]
    assert definition["inputSchema"]["properties"] == {"key_id": {"type": "integer"}}
    assert definition["outputSchema"]["properties"] == {
        "created_at": {
            "type": "string",
            "format": "date-time",
            "examples": ["2020-01-01T00:00:00Z"],
        }
    }
    assert [str(w) for w in plan.warnings] == [
        "specs/shared/key_response.yml#/content/application~1json/schema/properties: warning: "
        "properties given by $ref is read as the map it names"
    ]
    (skipped,) = plan.skipped
    assert str(skipped).startswith(
        "specs/api.yaml#/paths/~1v2~1keys~1{key_id}/delete: warning: DELETE /v2/keys/{key_id} "
        "is not imported: cannot read "
    )


def test_a_yaml_alias_bomb_is_refused_without_expanding_it(tmp_path: Path) -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    spec = tmp_path / "bomb.yaml"
    spec.write_text(
        "openapi: 3.0.0\ninfo: {title: b, version: '1'}\npaths: {}\n" + "\n".join(levels) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(BuildError) as failure:
        plan_import(spec, "bomb.yaml", tmp_path / "tools")
    assert str(failure.value.diagnostics[0]) == (
        "bomb.yaml#: error: refused: its aliases expand to more than 30,000,000 values"
    )
    # Anchors used as intended are read as usual.
    spec.write_text(
        "openapi: 3.0.0\ninfo: {title: b, version: '1'}\npaths:\n  /a:\n    get: &op\n"
        "      responses: {'200': {description: ok}}\n  /b:\n    get: *op\n",
        encoding="utf-8",
    )
    assert [t.name for t in plan_import(spec, "bomb.yaml", tmp_path / "tools").tools] == [
        "get_a",
        "get_b",
    ]


def test_an_all_of_of_plain_objects_becomes_the_one_object_it_means(tmp_path: Path) -> None:
    schemas = {
        "Updatable": {"type": "object", "properties": {"name": {"type": "string"}}},
        "Create": {"type": "object", "properties": {"region": {"type": "string"}}},
        "Tagged": {"type": "object", "properties": {"name": {"type": "integer"}}},
    }
    both = {
        "allOf": [
            {"$ref": "#/components/schemas/Updatable"},
            {"$ref": "#/components/schemas/Create"},
        ],
        "required": ["name", "region"],
    }
    clash = {
        "allOf": [
            {"$ref": "#/components/schemas/Updatable"},
            {"$ref": "#/components/schemas/Tagged"},
        ]
    }
    doc = document(
        {
            "/a": {"get": {"operationId": "a", "responses": json_response(both)}},
            "/b": {"get": {"operationId": "b", "responses": json_response(clash)}},
        },
        schemas,
    )
    found = tools(imported(tmp_path, doc))
    merged = found["a"]["outputSchema"]
    assert merged == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "region": {"type": "string"}},
        "required": ["name", "region"],
    }
    original = {**both, "$defs": {"Updatable": schemas["Updatable"], "Create": schemas["Create"]}}
    original = json.loads(json.dumps(original).replace("#/components/schemas/", "#/$defs/"))
    for instance in (
        {"name": "n", "region": "r"},
        {"name": "n"},
        {"name": 1, "region": "r"},
        {"name": "n", "region": "r", "x": 1},
    ):
        assert jsonschema.Draft202012Validator(merged).is_valid(
            instance
        ) == jsonschema.Draft202012Validator(original).is_valid(instance)
    # Two members that say different things of one property: that property holds both.
    assert found["b"]["outputSchema"]["properties"] == {
        "name": {"allOf": [{"type": "string"}, {"type": "integer"}]}
    }


def test_the_stand_ins_of_cut_defs_fit_in_the_budget_too(tmp_path: Path) -> None:
    """A kept def that refers to forty others brings forty stand-ins: they are charged
    before it is kept, so the schema never exceeds its budget (GitHub's timeline output
    was 66 KB of a 64 KB budget when only kept defs were counted)."""
    from mcp_schemagen.openapi.document import read_document
    from mcp_schemagen.openapi.schemas import Translation

    kinds = {
        f"Kind{i}": {"type": "object", "properties": {"a": {"type": "string"}}} for i in range(40)
    }
    hub = {"oneOf": [{"$ref": f"#/components/schemas/Kind{i}"} for i in range(40)]}
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(document({}, {"Hub": hub, **kinds})), encoding="utf-8")
    doc = read_document(spec, "api.json")
    translation = Translation("3.0", "output", "api.json", doc.scope.base)
    root = {"type": "array", "items": {"$ref": "#/components/schemas/Hub"}}
    translated = translation.schema(root, doc.scope, "/x")
    whole = translation.finish(translated)
    for budget in range(len(json.dumps(whole)) - 1, 200, -97):
        cut = translation.finish(translated, budget=budget)
        assert len(json.dumps(cut)) <= budget
        assert translation.cut, budget
        for name in translation.cut:
            assert cut["$defs"][name]["description"].endswith(
                f"api.json#/components/schemas/{name}"
            )
    # Too small for the hub with its forty stand-ins: the hub itself is the one cut.
    assert translation.finish(translated, budget=300)["$defs"] == {
        "Hub": {
            "description": "Cut by mcp-codegen import (schema budget): api.json#/components/schemas/Hub"
        }
    }
