"""Real documents of public APIs, messy as they are published (tests/openapi/documents/real,
sources and commits in SOURCE.md): OpenAI's (keyword typos, 2019-09 recursion, duplicate
`required` entries, multipart bodies), Asana's (YAML integer response codes), Twilio's
(form bodies, HTTP basic) and Slack's (Swagger 2.0, refused with the command that converts
it; the command run and its result imported). Each imports with its counts, every mess
cleaned at its own pointer, what cannot be imported skipped per operation, and the result
builds and passes `mypy --strict`."""

from __future__ import annotations

import gzip
import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcp_schemagen.diagnostics import BuildError
from mcp_schemagen.openapi.importer import ImportPlan, plan_import
from tests.support.node import node_toolchain
from tests.support.projects import mypy_strict, run_cli, write_project

REAL = Path(__file__).parent / "documents" / "real"
MULTIPART = "multipart (file upload) bodies are not imported"


def unpacked(folder: Path, name: str) -> Path:
    """A vendored document, decompressed into ``folder`` under its own name."""
    target = folder / name.removesuffix(".gz")
    target.write_bytes(gzip.decompress((REAL / name).read_bytes()))
    return target


def planned(tmp_path: Path, name: str) -> ImportPlan:
    spec = unpacked(tmp_path, name)
    return plan_import(spec, spec.name, tmp_path / "tools")


def said(plan: ImportPlan) -> list[str]:
    return [str(diagnostic) for diagnostic in plan.warnings]


def walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def assert_clean(plan: ImportPlan) -> None:
    """Every schema written is valid 2020-12 and holds none of the mess it was read with."""
    for tool in plan.tools:
        for key in ("inputSchema", "outputSchema"):
            if key in tool.definition:
                jsonschema.Draft202012Validator.check_schema(tool.definition[key])
        for schema in walk({k: v for k, v in tool.definition.items() if k.endswith("Schema")}):
            assert not {"min_items", "max_items", "$recursiveAnchor", "$recursiveRef"} & set(
                schema
            ), tool.name
            required = schema.get("required")
            if isinstance(required, list):
                assert len(required) == len(set(required)), tool.name


def test_openais_document_is_cleaned_at_each_pointer(tmp_path: Path) -> None:
    plan = planned(tmp_path, "openai.yaml.gz")
    assert (len(plan.tools), plan.operation_count, len(plan.skipped)) == (278, 288, 10)
    warnings = said(plan)
    schemas = "openai.yaml#/components/schemas"
    for expected in (
        f"{schemas}/GraderScoreModel/properties/range/items/min_items: warning: 'min_items' is "
        "not a JSON Schema keyword; read as 'minItems'",
        f"{schemas}/GraderScoreModel/properties/range/items/max_items: warning: 'max_items' is "
        "not a JSON Schema keyword; read as 'maxItems'",
        f"{schemas}/CompoundFilter/$recursiveAnchor: warning: $recursiveAnchor (2019-09 "
        "recursion) is dropped: the schema accepts more",
        f"{schemas}/CompoundFilter/properties/filters/items/oneOf/1/$recursiveRef: warning: "
        "$recursiveRef (2019-09 recursion) is dropped: the schema accepts more",
        f"{schemas}/ContainerResource/required: warning: duplicate names in required are "
        "listed once",
    ):
        assert expected in warnings
    # What cannot be imported is skipped per operation, named, with what to do.
    assert all(MULTIPART in d.message for d in plan.skipped)
    assert any(
        str(d).startswith(
            "openai.yaml#/paths/~1audio~1transcriptions/post/requestBody/content: warning: "
            "POST /audio/transcriptions (createTranscription) is not imported: the request "
            "body is multipart/form-data"
        )
        for d in plan.skipped
    )
    assert_clean(plan)
    grader = next(t for t in plan.tools if t.name == "runGrader").definition
    ranges = [s["range"] for s in walk(grader) if isinstance(s.get("range"), dict)]
    assert ranges and all(r["items"]["minItems"] == 2 == r["items"]["maxItems"] for r in ranges)


def test_asanas_integer_response_codes_are_read_as_strings_and_said_once_per_kind(
    tmp_path: Path,
) -> None:
    plan = planned(tmp_path, "asana_oas.yaml.gz")
    assert (len(plan.tools), plan.operation_count, len(plan.skipped)) == (246, 247, 1)
    (skipped,) = plan.skipped
    assert "POST /attachments (createAttachmentForObject) is not imported" in skipped.message
    codes = [w for w in said(plan) if "read as the string" in w]
    # 1,520 unquoted codes: three said in full, then one line for the rest.
    assert codes == [
        "asana_oas.yaml#/paths/~1access_requests/get/responses/200: warning: response code 200 "
        "read as the string '200'",
        "asana_oas.yaml#/paths/~1access_requests/get/responses/400: warning: response code 400 "
        "read as the string '400'",
        "asana_oas.yaml#/paths/~1access_requests/get/responses/401: warning: response code 401 "
        "read as the string '401'",
        "asana_oas.yaml#/paths/~1access_requests/get/responses/402: warning: response code 402 "
        "read as the string '402' (and 1,517 more like it, not listed; each cleaned the same way)",
    ]
    with_output = [t for t in plan.tools if "outputSchema" in t.definition]
    assert len(with_output) == 246  # the 200s and 201s found, though YAML read them as numbers
    assert_clean(plan)


def test_twilios_form_bodies_and_basic_credentials(tmp_path: Path) -> None:
    plan = planned(tmp_path, "twilio_accounts_v1.json.gz")
    assert (len(plan.tools), plan.operation_count, len(plan.skipped)) == (20, 20, 0)
    http = [t.definition["x-mcp-codegen-http"] for t in plan.tools]
    forms = [h for h in http if h.get("body") == "application/x-www-form-urlencoded"]
    assert len(forms) == 8
    assert {h["server"] for h in http} == {"https://accounts.twilio.com"}
    assert_clean(plan)


def test_slacks_swagger_2_is_refused_with_a_command_that_converts_it(tmp_path: Path) -> None:
    spec = unpacked(tmp_path, "slack_web_openapi_v2_without_examples.json.gz")
    with pytest.raises(BuildError) as refused:
        plan_import(spec, spec.name, tmp_path / "tools")
    (problem,) = refused.value.diagnostics
    message = str(problem)
    assert message.startswith(f"{spec.name}#/swagger: error: Swagger 2.0 (OpenAPI 2.0) is not ")
    command = message.split("`")[1]  # run exactly what the message says, with the locked npm
    words = shlex.split(command)
    assert words[:2] == ["npx", "swagger2openapi@7.0.8"]
    toolchain = node_toolchain()
    converted = subprocess.run(
        [str(toolchain.bin("swagger2openapi")), *words[2:]],
        cwd=tmp_path,
        env=toolchain.environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert converted.returncode == 0, converted.stderr
    result = tmp_path / words[-1]
    assert message.endswith(f"then import {words[-1]}")
    plan = plan_import(result, result.name, tmp_path / "tools")
    assert (len(plan.tools), plan.operation_count, len(plan.skipped)) == (174, 174, 0)
    http = [t.definition["x-mcp-codegen-http"] for t in plan.tools]
    assert sum(h.get("body") == "application/x-www-form-urlencoded" for h in http) > 50
    assert_clean(plan)


def test_parts_of_each_real_document_build_and_type_check(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project", {}, revisions=("2025-06-18", "2026-07-28"))
    chosen = {
        "twilio_accounts_v1.json.gz": (),  # all 20
        "openai.yaml.gz": ("runGrader", "ListContainers", "getEvalRun"),
        "asana_oas.yaml.gz": ("getTask", "createTask", "getProjects"),
    }
    for name, operations in chosen.items():
        spec = unpacked(tmp_path, name)
        selection = ["--operations", *operations] if operations else []
        code, _, err = run_cli("import", "openapi", str(spec), "--dir", str(root), *selection)
        assert code == 0, err
        assert "Traceback" not in err
    tools = sorted(p.stem for p in (root / "tools").glob("*.json"))
    assert len(tools) == 26 and {"runGrader", "getEvalRun", "createTask"} <= set(tools)
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    checked = mypy_strict(root, "server")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    handlers = (root / "server" / "handlers.py").read_text(encoding="utf-8")
    assert "return await upstream.getEvalRun(eval_id=eval_id, run_id=run_id)" in handlers
    grader = json.loads((root / "tools" / "runGrader.json").read_text(encoding="utf-8"))
    assert grader["x-mcp-codegen-http"]["from"].endswith(
        "#/paths/~1fine_tuning~1alpha~1graders~1run/post"
    )
