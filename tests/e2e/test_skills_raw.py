"""Skills (SEP-2640) over raw JSON-RPC, byte for byte: every message the generated server
sends is checked against the revision's schema, and the extension's two results against
a schema written from the SEP (tests/e2e/data/skills/, SOURCE.md says how), over stdio and
over Streamable HTTP. 2026-07-28 declares the extension in server/discover and answers
skills/list (every page), skills/get and resources/read of each file, digest and size
equal to the file on disk; 2025-11-25, whose capabilities have no `extensions`, declares
nothing and refuses the methods as not found."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.http_client import Checker, HttpSession, exchange
from tests.support.http_server import free_port, http_command, serving
from tests.support.skills_project import EXTENSION, SKILLS, on_disk, skills_project
from tests.support.stdio_conversation import STATELESS, Conversation, meta

SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "skills" / "skills.schema.json").read_text("utf-8")
)
RESULTS = {"skills/list": "ListSkillsResult", "skills/get": "GetSkillResult"}
LEGACY = "2025-11-25"


class SkillChecks:
    """Conversation's checks, and the Skills extension's results checked by the SEP."""

    pending: dict[Any, str]
    spec: Any

    def check_single(self, message: dict[str, Any]) -> None:
        method = self.pending.get(message.get("id")) if "result" in message else None
        if method in RESULTS:
            self.spec.assert_exact(message, "JSONRPCResultResponse")
            definition = {"$ref": f"#/$defs/{RESULTS[method]}", "$defs": SCHEMA["$defs"]}
            jsonschema.validate(message["result"], definition)
            return
        super().check_single(message)  # type: ignore[misc]


class SkillsConversation(SkillChecks, Conversation):
    pass


class SkillsChecker(SkillChecks, Checker):
    pass


# A request in a revision's form: the method, its params; the result (or the error).
Ask = Callable[[str, dict[str, Any]], dict[str, Any]]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return skills_project(tmp_path_factory.mktemp("skills-raw") / "p")


def _stateless(params: dict[str, Any]) -> dict[str, Any]:
    return {**params, "_meta": meta()}


def exercise_stateless(ask: Ask) -> None:
    discovered = ask("server/discover", _stateless({}))["result"]
    assert discovered["capabilities"]["extensions"] == {EXTENSION: {}}
    assert discovered["capabilities"]["resources"] == {}
    entries: list[dict[str, Any]] = []
    params: dict[str, Any] = {}
    while True:
        page = ask("skills/list", _stateless(params))["result"]
        assert page["resultType"] == "complete" and len(page["skills"]) == 1
        entries += page["skills"]
        if "nextCursor" not in page:
            break
        params = {"cursor": page["nextCursor"]}
    files = [r for entry in entries for r in entry["resources"]]
    assert sorted(f["uri"] for f in files) == sorted("skill://" + p for p in SKILLS)
    for file in files:
        (content,) = ask("resources/read", _stateless({"uri": file["uri"]}))["result"]["contents"]
        data = content["text"].encode() if "text" in content else base64.b64decode(content["blob"])
        assert data == on_disk(file["uri"])
        assert file["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
        assert file["size"] == len(data)
    for entry in entries:
        got = ask("skills/get", _stateless({"uri": entry["uri"]}))["result"]
        assert got["skill"] == entry
    error = ask("skills/get", _stateless({"uri": "skill://acme/SKILL.md"}))["error"]
    assert error["code"] == -32602
    assert error["message"] == (
        "No skill at skill://acme/SKILL.md: skills/get takes the uri of a SKILL.md that"
        " skills/list names"
    )


def exercise_legacy(ask: Ask, capabilities: dict[str, Any]) -> None:
    assert "extensions" not in capabilities and capabilities["resources"] == {}
    for method in ("skills/list", "skills/get"):
        error = ask(method, {"uri": "skill://git-workflow/SKILL.md"})["error"]
        assert error == {
            "code": -32601,
            "message": f"Method not found in protocol revision {LEGACY}: {method}",
        }
    uri = "skill://git-workflow/SKILL.md"
    (content,) = ask("resources/read", {"uri": uri})["result"]["contents"]
    assert content == {"uri": uri, "mimeType": "text/markdown", "text": on_disk(uri).decode()}


def test_stdio(project: Path, tmp_path: Path) -> None:
    stateless = SkillsConversation(project, "server", STATELESS, tmp_path / "stateless.log")
    try:
        exercise_stateless(stateless.request)
    finally:
        assert stateless.close() == 0
    legacy = SkillsConversation(project, "server", LEGACY, tmp_path / "legacy.log")
    try:
        initialized = legacy.result(
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        legacy.notify("notifications/initialized")
        exercise_legacy(legacy.request, initialized["capabilities"])
    finally:
        assert legacy.close() == 0


@pytest.fixture(scope="module")
def url(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("http") / "server.log"
    with serving(project, http_command("server", port), port, log) as served:
        yield served


def _http(session: HttpSession) -> Ask:
    session.checker = SkillsChecker(session.revision)

    def ask(method: str, params: dict[str, Any]) -> dict[str, Any]:
        params = {k: v for k, v in params.items() if k != "_meta"}  # the session adds it
        headers = {}
        if method == "resources/read" and session.revision == STATELESS:
            headers["Mcp-Name"] = params["uri"]  # SEP-2243: what the request names
        reply = session.request(method, params, headers=headers)
        assert reply.status == 200, reply
        answer: dict[str, Any] = reply.last
        return answer

    return ask


def _legacy_capabilities(url: str) -> dict[str, Any]:
    """What a 2025-11-25 initialize over HTTP declares (schema-checked)."""
    checker = SkillsChecker(LEGACY)
    checker.pending[1] = "initialize"
    params = {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    reply = exchange(
        url, body={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    )
    checker.check(reply.last)
    capabilities: dict[str, Any] = reply.last["result"]["capabilities"]
    return capabilities


def test_http(url: str) -> None:
    exercise_stateless(_http(HttpSession(url, STATELESS)))
    exercise_legacy(_http(HttpSession(url, LEGACY)), _legacy_capabilities(url))
