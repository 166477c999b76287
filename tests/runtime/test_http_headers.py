"""The header rules of the HTTP transport, as pure functions: allow-lists, Accept, the
``=?base64?…?=`` form, and ``Mcp-Param-*`` compared with the arguments they mirror."""

from __future__ import annotations

from mcp_schemagen.runtime.http.headers import (
    accepts,
    decode_value,
    host_allowed,
    origin_allowed,
    param_headers,
    param_mismatch,
)
from mcp_schemagen.runtime.http.settings import LOOPBACK_HOSTS

SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "limits": {"properties": {"count": {"type": "integer", "x-mcp-header": "Count"}}},
        "dry": {"type": "boolean", "x-mcp-header": "Dry"},
        "query": {"type": "string"},
    },
}


def test_hosts_and_origins() -> None:
    assert host_allowed("localhost:8000", LOOPBACK_HOSTS)
    assert host_allowed("[::1]:8000", LOOPBACK_HOSTS)
    assert not host_allowed("evil.example", LOOPBACK_HOSTS)
    assert not host_allowed("localhost.evil.example:8000", LOOPBACK_HOSTS)
    assert host_allowed("mcp.example.com", ("mcp.example.com:443", "mcp.example.com"))
    assert origin_allowed("http://127.0.0.1:5173", LOOPBACK_HOSTS, ())
    assert not origin_allowed("https://evil.example", LOOPBACK_HOSTS, ())
    assert not origin_allowed("null", LOOPBACK_HOSTS, ())
    assert origin_allowed("https://app.example", LOOPBACK_HOSTS, ("https://app.example",))


def test_accept() -> None:
    assert accepts(None) == (True, True)
    assert accepts("application/json, text/event-stream") == (True, True)
    assert accepts("text/event-stream") == (False, True)
    assert accepts("*/*") == (True, True)
    assert accepts("text/html") == (False, False)
    assert accepts("application/json;q=0, text/event-stream") == (False, True)


def test_values_decode_from_the_base64_form() -> None:
    assert decode_value("us-west1") == "us-west1"
    assert decode_value("=?base64?SGVsbG8sIOS4lueVjA==?=") == "Hello, 世界"
    assert decode_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=") == "=?base64?literal?="
    assert decode_value("=?base64?not base64!?=") is None
    assert decode_value("caf\u00e9") is None  # not visible ASCII: must have been encoded


def test_param_headers_mirror_the_arguments() -> None:
    specs = param_headers(SCHEMA)
    assert [(s.header, s.path) for s in specs] == [
        ("mcp-param-region", ("region",)),
        ("mcp-param-count", ("limits", "count")),
        ("mcp-param-dry", ("dry",)),
    ]
    arguments = {"region": "eu", "limits": {"count": 42}, "dry": False, "query": "q"}
    headers = {"mcp-param-region": "eu", "mcp-param-count": "42.0", "mcp-param-dry": "false"}
    assert param_mismatch(specs, headers, arguments) is None
    del headers["mcp-param-dry"]
    assert "Mcp-Param-Dry header is missing" in (param_mismatch(specs, headers, arguments) or "")
    headers["mcp-param-dry"] = "true"
    assert "does not match" in (param_mismatch(specs, headers, arguments) or "")
    absent = {"region": "eu"}
    assert param_mismatch(specs, {"mcp-param-region": "eu"}, absent) is None
    assert "present" in (
        param_mismatch(specs, {"mcp-param-region": "eu", "mcp-param-dry": "true"}, absent) or ""
    )
