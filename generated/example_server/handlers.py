"""Tool handlers of example-server: the one module of this package you edit.

mcp-codegen wrote a stub for each tool. Fill in the bodies; `mcp-codegen build` keeps
them, updating only each handler's parameters and return type (and the import from
`.types`) when the tool schemas change. A handler may be `async def`.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import struct
import zlib
from typing import TYPE_CHECKING, Literal

from example_server.api import (
    Elicit,
    Sample,
    ToolError,
    form,
    get_context,
    image,
    resource_link,
    text,
    user,
)
from example_server.types import WeatherForecastDay

if TYPE_CHECKING:
    from .types import (
        CompletionArguments,
        CompletionReturn,
        CreateOrderCustomer,
        CreateOrderItem,
        GetWeatherUnits,
        PromptReturn,
        ResourceReturn,
        ShapeAreaCircle,
        ShapeAreaRectangle,
        StationLatestResourceStation,
        StationLatestResourceUnits,
        ToolResult,
        ToolReturn,
        WeatherBriefingPromptStyle,
        WeatherForecastOutput,
    )

# The cities the briefing prompt's completion offers (the argument accepts any city).
KNOWN_CITIES = ("Oslo", "Bergen", "Berlin", "Bern", "Bordeaux", "Tromsø", "Trondheim")

_CONDITIONS: tuple[Literal["sunny", "cloudy", "rain", "snow"], ...] = ("sunny", "cloudy", "rain", "snow")


def _seed(*parts: str) -> int:
    # The example has no weather service: figures are derived from the request, so every
    # call with the same arguments answers the same (tests rely on it).
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:4], "big")


# mcp-codegen tool: "create_order"
def create_order(
    *,
    customer: CreateOrderCustomer,
    items: list[CreateOrderItem],
    gift_wrap: bool = False,
    notes: str | None = None,
) -> ToolReturn:
    """Place an order for one customer: nested objects and an array of objects."""
    total = sum(item["quantity"] * item["unit_price"] for item in items)
    lines = [f"Order for {customer['name']} <{customer['email']}>:"]
    lines += [f"  {item['quantity']} x {item['sku']} at {item['unit_price']:.2f}" for item in items]
    lines.append(f"Total: {total:.2f}{' (gift wrapped)' if gift_wrap else ''}")
    if notes:
        lines.append(f"Notes: {notes}")
    return "\n".join(lines)


# mcp-codegen tool: "divide"
def divide(*, dividend: float, divisor: float) -> ToolReturn:
    """Divide two numbers; dividing by zero is reported as a tool error."""
    if divisor == 0:
        # ToolError: an expected failure, told to the model without logging a traceback
        raise ToolError("cannot divide by zero; pass a non-zero divisor")
    return repr(dividend / divisor)


# mcp-codegen tool: "get_weather"
def get_weather(*, location: str, units: GetWeatherUnits = "celsius") -> ToolReturn:
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
def render_chart(*, values: list[float], title: str | None = None) -> ToolReturn:
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
def server_time() -> ToolReturn:
    """The server's current time in UTC, as an ISO 8601 string."""
    return [text(datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))]


# mcp-codegen tool: "shape_area"
def shape_area(*, shape: ShapeAreaCircle | ShapeAreaRectangle, precision: int = 2) -> ToolReturn:
    """Area of a circle or a rectangle, chosen by \"kind\" ($defs, $ref and oneOf)."""
    if shape["kind"] == "circle":
        area = math.pi * shape["radius"] ** 2
    else:
        area = shape["width"] * shape["height"]
    return f"{area:.{precision}f}"


# mcp-codegen tool: "weather_forecast"
def weather_forecast(*, location: str, days: int = 3) -> WeatherForecastOutput | ToolResult:
    """Daily forecast for the next days, as structured data."""
    return _forecast(location, days)


def _forecast(location: str, days: int) -> WeatherForecastOutput:
    # The forecast itself: summarize_forecast reads it too (a handler may return a
    # ToolResult instead, so its result is not indexable as the output type).
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


# mcp-codegen tool: "cancel_order"
async def cancel_order(*, order_id: str) -> ToolReturn:
    """Cancel an order once the user confirms it (asks the user through the client: elicitation)."""
    # Ask first, act after: in 2026-07-28 the handler runs again from the top when the
    # client retries with the answer, so nothing before this line may have effects.
    answer = await get_context().elicit(
        f"Cancel order {order_id}? This cannot be undone.",
        form({"confirm": {"type": "boolean", "title": "Cancel the order", "default": False}}, required=["confirm"]),
        key="confirm",
    )
    if answer.accepted and answer.content is not None and answer.content.get("confirm") is True:
        return f"Order {order_id} cancelled."
    return f"Order {order_id} kept ({answer.action})."


# mcp-codegen tool: "list_workspace"
async def list_workspace() -> ToolReturn:
    """List the folders and files the client lets this server work on (roots)."""
    roots = await get_context().list_roots(key="roots")
    if not roots:
        return "The client shares no folders."
    return "\n".join(f"{root.get('name', root['uri'])}: {root['uri']}" for root in roots)


# mcp-codegen tool: "plan_trip"
async def plan_trip(*, destination: str) -> ToolReturn:
    """Plan a trip in two rounds of questions: the traveller's preferences (a form with defaults and choices), then at once a confirmation and a packing list from the client's model."""
    ctx = get_context()
    preferences = await ctx.elicit(
        f"Your trip to {destination}",
        form(
            {
                "traveller": {"type": "string", "title": "Name", "default": "Ada"},
                "nights": {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30, "default": 3},
                "budget": {"type": "number", "title": "Budget per night", "default": 120.0},
                "cabin": {
                    "type": "string",
                    "title": "Travel class",
                    "oneOf": [{"const": "economy", "title": "Economy"}, {"const": "business", "title": "Business"}],
                    "default": "economy",
                },
                "meal": {"type": "string", "title": "Meal", "enum": ["any", "veg"], "enumNames": ["Anything", "Vegetarian"]},
                "insurance": {"type": "boolean", "title": "Travel insurance", "default": False},
            },
            required=["traveller"],
        ),
        key="preferences",
    )
    if not preferences.accepted or preferences.content is None:
        return f"No trip to {destination} ({preferences.action})."
    chosen = preferences.content
    nights = chosen.get("nights", 3)
    # Two questions in one round: a session client gets both requests at once, a
    # 2026-07-28 client both input requests in one input_required result.
    answers = await ctx.ask(
        {
            "confirm": Elicit(
                f"Book {nights} nights in {destination} for {chosen['traveller']}?",
                form({"book": {"type": "boolean", "title": "Book it", "default": True}}, required=["book"]),
            ),
            "packing": Sample([f"List five things to pack for {nights} nights in {destination}."], max_tokens=80),
        }
    )
    confirm, packing = answers["confirm"], answers["packing"]
    if not confirm.accepted or not (confirm.content or {}).get("book"):
        return f"Trip to {destination} not booked."
    return (
        f"Booked {nights} nights in {destination} for {chosen['traveller']}, "
        f"{chosen.get('cabin', 'economy')} class. Pack: {packing.text}"
    )


# mcp-codegen tool: "summarize_forecast"
async def summarize_forecast(*, location: str, days: int = 3) -> ToolReturn:
    """Have the client's model summarize the forecast for a city in one sentence (sampling)."""
    forecast = _forecast(location, days)
    facts = "; ".join(f"{day['date']}: {day['conditions']}, {day['low']} to {day['high']}" for day in forecast["days"])
    answer = await get_context().sample(
        [f"Summarize this forecast for {location} in one sentence: {facts}"],
        max_tokens=100,
        system_prompt="You are a concise weather presenter.",
        key="summary",
    )
    return f"{answer.text} (summarized by {answer.model})"


# mcp-codegen prompt: "weather_briefing"
def weather_briefing(*, city: str, style: WeatherBriefingPromptStyle | None = None) -> PromptReturn:
    """Ask the model for a short weather briefing for a city.

    Args:
        city: The city to brief on.
        style: How the briefing should read.
    """
    manner = {
        "plain": "in two plain sentences",
        "pirate": "in two sentences, as a pirate would say it",
        "haiku": "as a haiku",
    }[style or "plain"]
    return [
        user(f"Give me today's weather briefing for {city}, {manner}."),
        user(f"Use the get_weather tool for {city} first, then answer."),
    ]


# mcp-codegen resource: "weather://stations/{station}/latest{?units}"
def read_station_latest(
    *, station: StationLatestResourceStation, units: StationLatestResourceUnits | None = None
) -> ResourceReturn:
    """The latest reading of a weather station.

    Args:
        station: The station's code.
        units: Temperature units.
    """
    celsius = {"oslo-blindern": 4.5, "bergen-florida": 7.0, "tromso-langnes": -3.5}[station]
    if units == "fahrenheit":
        return json.dumps({"station": station, "temperature": celsius * 9 / 5 + 32, "units": units})
    return json.dumps({"station": station, "temperature": celsius, "units": "celsius"})


# mcp-codegen completion: "prompt weather_briefing city"
def complete_weather_briefing_city(
    *, value: str, arguments: CompletionArguments
) -> CompletionReturn:
    """Completions of argument 'city' of prompt
    'weather_briefing'.

    `value` is the text typed so far, `arguments` the arguments already chosen;
    the first 100 values returned are sent.
    """
    typed = value.casefold()
    return [city for city in KNOWN_CITIES if city.casefold().startswith(typed)]
