"""What the official SDK client does with the embedded example, whatever the transport:
list every tool page by page and call every tool, checking each answer."""

from __future__ import annotations

from typing import Any


async def call_every_example_tool(client: Any, tools: list[str], order: dict[str, Any]) -> None:
    names: list[str] = []
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    assert names == tools
    weather = await client.call_tool("get_weather", {"location": "Oslo"})
    assert weather.content[0].text.startswith("Weather in Oslo")
    forecast = await client.call_tool("weather_forecast", {"location": "Oslo"})
    assert forecast.structured_content is not None
    assert len(forecast.structured_content["days"]) == 3
    placed = await client.call_tool("create_order", order)
    assert "Ada" in placed.content[0].text
    area = await client.call_tool(
        "shape_area", {"shape": {"kind": "rectangle", "width": 2, "height": 3}}
    )
    assert area.content[0].text == "6.00"
    chart = await client.call_tool("render_chart", {"values": [1, 2]})
    assert [block.type for block in chart.content] == ["image", "resource_link"]
    assert (await client.call_tool("server_time", {})).content[0].text
    failed = await client.call_tool("divide", {"dividend": 1, "divisor": 0})
    assert failed.is_error
    invalid = await client.call_tool("get_weather", {"location": ""})
    assert invalid.is_error and "location" in invalid.content[0].text
