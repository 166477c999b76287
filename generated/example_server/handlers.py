"""Tool handlers of example-server: the one module of this package you edit.

mcp-codegen wrote a stub for each tool. Fill in the bodies; `mcp-codegen build` keeps
them, updating only each handler's parameters and return type (and the import from
`.types`) when the tool schemas change. A handler may be `async def`.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import struct
import zlib
from typing import Literal

from example_server.api import image, resource_link, text
from example_server.types import WeatherForecastDay

from .types import (
    ContentBlock,
    CreateOrderCustomer,
    CreateOrderItems,
    GetWeatherUnits,
    ShapeAreaShape,
    WeatherForecastOutput,
)

_CONDITIONS: tuple[Literal["sunny", "cloudy", "rain", "snow"], ...] = ("sunny", "cloudy", "rain", "snow")


def _seed(*parts: str) -> int:
    # The example has no weather service: figures are derived from the request, so every
    # call with the same arguments answers the same (tests rely on it).
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:4], "big")


# mcp-codegen tool: "create_order"
def create_order(
    *,
    customer: CreateOrderCustomer,
    items: CreateOrderItems,
    gift_wrap: bool = False,
    notes: str | None = None,
) -> str | list[ContentBlock]:
    """Place an order for one customer: nested objects and an array of objects."""
    total = sum(item["quantity"] * item["unit_price"] for item in items)
    lines = [f"Order for {customer['name']} <{customer['email']}>:"]
    lines += [f"  {item['quantity']} x {item['sku']} at {item['unit_price']:.2f}" for item in items]
    lines.append(f"Total: {total:.2f}{' (gift wrapped)' if gift_wrap else ''}")
    if notes:
        lines.append(f"Notes: {notes}")
    return "\n".join(lines)


# mcp-codegen tool: "divide"
def divide(*, dividend: float, divisor: float) -> str | list[ContentBlock]:
    """Divide two numbers; dividing by zero is reported as a tool error."""
    if divisor == 0:
        raise ZeroDivisionError("cannot divide by zero; pass a non-zero divisor")
    return repr(dividend / divisor)


# mcp-codegen tool: "get_weather"
def get_weather(*, location: str, units: GetWeatherUnits = "celsius") -> str | list[ContentBlock]:
    """Report the current weather for a city or a postal code."""
    seed = _seed(location)
    celsius = seed % 35 - 5
    degrees = celsius if units == "celsius" else celsius * 9 / 5 + 32
    symbol = "°C" if units == "celsius" else "°F"
    return f"Weather in {location}: {degrees:g}{symbol}, {_CONDITIONS[seed % 4]}"


def _png(width: int, height: int, pixels: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


# mcp-codegen tool: "render_chart"
def render_chart(*, values: list[float], title: str | None = None) -> str | list[ContentBlock]:
    """Render a bar chart as a PNG image and link to the data it was drawn from."""
    height, bar = 40, 6
    top = max(max(values), 1e-9)
    heights = [max(0, round(height * v / top)) for v in values]
    rows = [
        bytes(0 if heights[x // bar] >= height - y and x % bar else 255 for x in range(bar * len(values)))
        for y in range(height)
    ]
    data_uri = "data:text/plain," + ",".join(repr(v) for v in values)
    return [
        image(_png(bar * len(values), height, rows), "image/png"),
        resource_link(data_uri, title or "chart data", mime_type="text/plain"),
    ]


# mcp-codegen tool: "server_time"
def server_time() -> str | list[ContentBlock]:
    """The server's current time in UTC, as an ISO 8601 string."""
    return [text(datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))]


# mcp-codegen tool: "shape_area"
def shape_area(*, shape: ShapeAreaShape, precision: int = 2) -> str | list[ContentBlock]:
    """Area of a circle or a rectangle, chosen by \"kind\" ($defs, $ref and oneOf)."""
    if shape["kind"] == "circle":
        area = math.pi * shape["radius"] ** 2
    else:
        area = shape["width"] * shape["height"]
    return f"{area:.{precision}f}"


# mcp-codegen tool: "weather_forecast"
def weather_forecast(*, location: str, days: int = 3) -> WeatherForecastOutput:
    """Daily forecast for the next days, as structured data."""
    start = datetime.date(2026, 1, 1)
    forecast: list[WeatherForecastDay] = []
    for offset in range(days):
        seed = _seed(location, str(offset))
        low = seed % 20 - 5
        forecast.append(
            {
                "date": (start + datetime.timedelta(days=offset)).isoformat(),
                "high": float(low + seed % 9 + 1),
                "low": float(low),
                "conditions": _CONDITIONS[seed % 4],
            }
        )
    return {"location": location, "days": forecast}
