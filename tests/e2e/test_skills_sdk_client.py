"""Skills (SEP-2640) end to end with the official MCP Python SDK client: a project with a
skills/ folder is built, and a client over stdio and over Streamable HTTP lists the skills
(skills/list, paged), gets one (skills/get), reads every file through resources/read and
checks each against the entry's digest and size and against the file on disk.

The SDK has no Skills API of its own (python-sdk#3485 is open), so the extension's two
requests go through its generic ``send_request`` with models written here from the SEP's
interfaces, forbidding any field the SEP does not define. A 2025-11-25 client (whose
capabilities cannot carry ``extensions``) sees no extension, no skills methods, and the
skill files as ordinary resources."""

from __future__ import annotations

import base64
import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest

from tests.support.http_server import free_port, http_command, serving
from tests.support.skills_project import EXTENSION, SKILLS, on_disk, skills_project

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import PaginatedRequestParams, Request, RequestParams  # noqa: E402
from pydantic import BaseModel, ConfigDict, Field  # noqa: E402


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SkillResource(Strict):
    uri: str
    digest: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    size: int = Field(ge=0)


class Skill(Strict):
    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillResource] | Literal["dynamic"]


class ListSkillsResult(Strict):
    skills: list[Skill]
    nextCursor: str | None = None
    resultType: Literal["complete"]
    ttlMs: int
    cacheScope: Literal["public", "private"]
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class GetSkillResult(Strict):
    skill: Skill
    resultType: Literal["complete"]
    ttlMs: int
    cacheScope: Literal["public", "private"]
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class ListSkillsRequest(Request[PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: PaginatedRequestParams | None = None


class GetSkillParams(RequestParams):
    uri: str


class GetSkillRequest(Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return skills_project(tmp_path_factory.mktemp("skills") / "p")


async def _read_bytes(client: Any, uri: str) -> bytes:
    read = await client.read_resource(uri)
    (item,) = read.contents
    assert str(item.uri) == uri
    text = getattr(item, "text", None)
    return text.encode("utf-8") if text is not None else base64.b64decode(item.blob)


async def exercise_extension(client: Any) -> None:
    assert client.session.protocol_version == "2026-07-28"  # "auto" discovered it
    capabilities = client.server_capabilities
    assert capabilities.extensions == {EXTENSION: {}}
    assert capabilities.resources is not None  # the SEP requires it beside the extension
    session = client.session
    skills: list[Skill] = []
    cursor = None
    while True:
        params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
        page = await session.send_request(ListSkillsRequest(params=params), ListSkillsResult)
        assert len(page.skills) == 1
        skills += page.skills
        cursor = page.nextCursor
        if cursor is None:
            break
    assert [s.uri for s in skills] == [
        "skill://acme/billing/refunds/SKILL.md",
        "skill://git-workflow/SKILL.md",
    ]
    refunds = skills[0]
    assert refunds.frontmatter == {
        "name": "refunds",
        "description": "Process refund requests.",
        "license": "Apache-2.0",
        "metadata": {"version": "2.1"},
    }
    assert not isinstance(refunds.resources, str)
    assert {r.uri for r in refunds.resources} == {
        "skill://" + p for p in SKILLS if p.startswith("acme/")
    }
    for skill in skills:
        assert not isinstance(skill.resources, str)
        for resource in skill.resources:
            data = await _read_bytes(client, resource.uri)
            assert data == on_disk(resource.uri)
            assert resource.size == len(data)
            assert resource.digest == "sha256:" + hashlib.sha256(data).hexdigest()
    got = await session.send_request(
        GetSkillRequest(params=GetSkillParams(uri=refunds.uri)), GetSkillResult
    )
    assert got.skill == refunds
    with pytest.raises(MCPError) as unknown:
        await session.send_request(
            GetSkillRequest(params=GetSkillParams(uri="skill://nothing/SKILL.md")), GetSkillResult
        )
    assert unknown.value.error.code == -32602


async def exercise_without_extension(client: Any) -> None:
    capabilities = client.server_capabilities
    assert capabilities.extensions is None
    assert capabilities.resources is not None
    with pytest.raises(MCPError) as refused:
        await client.session.send_request(ListSkillsRequest(), ListSkillsResult)
    assert refused.value.error.code == -32601
    listed = await client.list_resources()  # pages of one: the first is a SKILL.md
    first = listed.resources[0]
    assert (str(first.uri), first.name, first.description, first.mime_type) == (
        "skill://acme/billing/refunds/SKILL.md",
        "refunds",
        "Process refund requests.",
        "text/markdown",
    )
    uri = "skill://acme/billing/refunds/assets/logo.png"
    assert await _read_bytes(client, uri) == on_disk(uri)


async def exercise(client: Any, mode: str) -> None:
    if mode == "legacy":
        await exercise_without_extension(client)
    else:
        await exercise_extension(client)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio(mode: str, project: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], cwd=str(project))

    async def bounded() -> None:
        with anyio.fail_after(60), (tmp_path / "stderr.log").open("w") as err:
            async with Client(
                stdio_client(params, errlog=err), mode=mode, read_timeout_seconds=15
            ) as client:
                await exercise(client, mode)

    anyio.run(bounded)


@pytest.fixture(scope="module")
def url(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("http") / "server.log"
    with serving(project, http_command("server", port), port, log) as served:
        yield served


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_http(mode: str, url: str) -> None:
    async def bounded() -> None:
        with anyio.fail_after(60):
            async with Client(url, mode=mode, read_timeout_seconds=15) as client:
                await exercise(client, mode)

    anyio.run(bounded)
