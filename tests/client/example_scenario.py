"""Every tool, the prompt and the resources of the embedded example through its typed
client, each result compared with what the SDK client underneath receives for the same call. Run in a fresh
interpreter by test_example_client.py, with the built package on PYTHONPATH:

    python example_scenario.py stdio|http|in-process MODE [URL]

Prints one line per call; exits non-zero on the first difference."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
from example_server.client import (
    ArgumentError,
    Client,
    ToolCallError,
    connect_http,
    connect_in_process,
    connect_stdio,
)
from mcp import types


async def elicit(context: Any, params: Any) -> types.ElicitResult:
    fields = params.model_dump(by_alias=True, exclude_none=True)["requestedSchema"]["properties"]
    if "confirm" in fields:
        return types.ElicitResult(action="accept", content={"confirm": True})
    if "traveller" in fields:
        return types.ElicitResult(action="accept", content={"traveller": "Grace", "nights": 2})
    if "book" in fields:
        return types.ElicitResult(action="accept", content={"book": True})
    return types.ElicitResult(action="decline")


async def sample(context: Any, params: Any) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="Mild and dry all week."),
        model="test-model",
        stopReason="endTurn",
    )


async def roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///home/ada/trips", name="trips")])


@asynccontextmanager
async def connected(transport: str, mode: str, url: str | None) -> AsyncIterator[Client]:
    callbacks: dict[str, Any] = {"elicitation": elicit, "sampling": sample, "roots": roots}
    if transport == "stdio":
        async with connect_stdio(mode=mode, **callbacks) as client:
            yield client
    elif transport == "http":
        assert url is not None
        async with connect_http(url, mode=mode, **callbacks) as client:
            yield client
    else:
        async with connect_in_process(mode=mode, **callbacks) as client:
            yield client


def dumped(blocks: Any) -> list[dict[str, Any]]:
    return [block.model_dump(by_alias=True, exclude_none=True) for block in blocks]


async def run(transport: str, mode: str, url: str | None) -> None:
    async with connected(transport, mode, url) as client:
        print("protocol", client.sdk.protocol_version)
        content_calls: list[tuple[Any, str, dict[str, Any]]] = [
            (client.tools.cancel_order(order_id="A-1"), "cancel_order", {"order_id": "A-1"}),
            (
                client.tools.create_order(
                    customer={"name": "Ada", "email": "ada@example.com"},
                    items=[{"sku": "tea", "quantity": 2, "unit_price": 3.5}],
                    notes="by noon",
                ),
                "create_order",
                {
                    "customer": {"name": "Ada", "email": "ada@example.com"},
                    "items": [{"sku": "tea", "quantity": 2, "unit_price": 3.5}],
                    "notes": "by noon",
                },
            ),
            (client.tools.divide(dividend=9, divisor=4), "divide", {"dividend": 9, "divisor": 4}),
            (client.tools.get_weather(location="Oslo"), "get_weather", {"location": "Oslo"}),
            (client.tools.list_workspace(), "list_workspace", {}),
            (client.tools.plan_trip(destination="Rome"), "plan_trip", {"destination": "Rome"}),
            (client.tools.render_chart(values=[1, 2.5]), "render_chart", {"values": [1, 2.5]}),
            (client.tools.server_time(), "server_time", {}),
            (
                client.tools.shape_area(shape={"kind": "circle", "radius": 2}, precision=1),
                "shape_area",
                {"shape": {"kind": "circle", "radius": 2}, "precision": 1},
            ),
            (
                client.tools.summarize_forecast(location="Oslo", days=2),
                "summarize_forecast",
                {"location": "Oslo", "days": 2},
            ),
        ]
        for typed_call, name, arguments in content_calls:
            typed = await typed_call
            raw = await client.sdk.call_tool(name, arguments)
            assert not raw.is_error, (name, raw)
            if name == "server_time":  # the clock moves between the two calls
                assert [b["type"] for b in dumped(typed)] == [
                    b["type"] for b in dumped(raw.content)
                ]
            else:
                assert dumped(typed) == dumped(raw.content), (name, typed, raw.content)
            print("tool", name, "content", dumped(typed)[0].get("text", dumped(typed)[0]["type"]))
        forecast = await client.tools.weather_forecast(location="Oslo", days=2)
        raw = await client.sdk.call_tool("weather_forecast", {"location": "Oslo", "days": 2})
        assert forecast == raw.structured_content, (forecast, raw.structured_content)
        print("tool weather_forecast structured", forecast["location"], len(forecast["days"]))

        try:
            await client.tools.divide(dividend=1, divisor=0)
        except ToolCallError as error:
            raw = await client.sdk.call_tool("divide", {"dividend": 1, "divisor": 0})
            assert raw.is_error and dumped(error.content) == dumped(raw.content)
            print("isError", error.tool, error.text)
        else:
            raise AssertionError("divide by zero did not raise ToolCallError")
        try:
            await client.tools.get_weather(location="")
        except ArgumentError as error:
            print("refused locally", error.problems)
        else:
            raise AssertionError("an empty location passed the local check")
        client.validate = False  # now the server's own check answers
        try:
            await client.tools.get_weather(location="")
        except ToolCallError as error:
            print("refused by the server", "'location'" in error.text)
        else:
            raise AssertionError("the server accepted an empty location")
        client.validate = True

        prompt = await client.prompts.weather_briefing(city="Oslo", style="haiku")
        raw_prompt = await client.sdk.get_prompt(
            "weather_briefing", {"city": "Oslo", "style": "haiku"}
        )
        assert prompt == raw_prompt
        print("prompt weather_briefing", len(prompt.messages))
        await complete_arguments(client)
        await read_resources(client)


async def complete_arguments(client: Client) -> None:
    styles = await client.complete_prompt("weather_briefing", "style", "p")
    raw = await client.sdk.complete(
        types.PromptReference(type="ref/prompt", name="weather_briefing"),
        {"name": "style", "value": "p"},
    )
    assert styles == raw.completion, (styles, raw)
    stations = await client.complete_template("station-latest", "station", "b", {"units": "x"})
    print("completed", sorted(styles.values), stations.values)
    try:
        await client.complete_template("nowhere", "station", "b")
    except ValueError as error:
        print("completion refused locally", error)


async def read_resources(client: Client) -> None:
    listed = await client.resources.list_all()
    assert dumped(listed) == dumped((await client.sdk.list_resources()).resources)
    templates = await client.resources.list_templates()
    raw_templates = (await client.sdk.list_resource_templates()).resource_templates
    assert dumped(templates) == dumped(raw_templates)
    print("listed", [str(r.uri) for r in listed], [t.uri_template for t in templates])
    reads: list[tuple[Any, str]] = [
        (client.resources.read_units_guide(), "docs://example/units"),
        (
            client.resources.read_station_latest(station="oslo-blindern"),
            "weather://stations/oslo-blindern/latest",
        ),
        (
            client.resources.read_station_latest(station="tromso-langnes", units="fahrenheit"),
            "weather://stations/tromso-langnes/latest?units=fahrenheit",
        ),
    ]
    for typed_read, uri in reads:
        typed = await typed_read
        raw = await client.sdk.read_resource(uri)
        assert dumped(typed) == dumped(raw.contents), (uri, typed, raw.contents)
        first = dumped(typed)[0]
        print("resource", first["uri"], first.get("text", "")[:40].replace("\n", " "))
    try:
        await client.resources.read_station_latest(station=cast(Any, "nowhere"))
    except ArgumentError as error:
        print("resource refused locally", error.kind, error.problems[0][0])
    else:
        raise AssertionError("a station outside the enum passed the local check")


if __name__ == "__main__":
    anyio.run(run, sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
