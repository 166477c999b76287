"""The header rules of the HTTP transport, as pure functions: allow-lists, Accept, the
``=?base64?…?=`` form, and ``Mcp-Param-*`` compared with the arguments they mirror."""

from __future__ import annotations

import pytest

from mcp_schemagen.runtime.http import headers as header_rules
from mcp_schemagen.runtime.http.headers import (
    accepts,
    decode_headers,
    decode_value,
    host_allowed,
    origin_allowed,
    param_headers,
    param_mismatch,
    parse_authority,
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


def test_decoded_headers() -> None:
    raw = [
        (b"host", b"127.0.0.1:8000"),
        (b"accept", b" \tapplication/json \t"),  # optional whitespace is not the value
        (b"x-repeated", b"first"),
        (b"x-repeated", b"last"),
        (b"x-latin", "caf\u00e9".encode("latin-1")),
        (bytearray(b"x-array"), bytearray(b" from a bytearray ")),  # unhashable: not kept
        (b"x-long", b"v" * 5000),
    ]
    for _ in range(3):  # decoded anew, then from what was kept: the same every time
        assert decode_headers(raw) == {
            "host": "127.0.0.1:8000",
            "accept": "application/json",
            "x-repeated": "last",
            "x-latin": "caf\u00e9",
            "x-array": "from a bytearray",
            "x-long": "v" * 5000,
        }
    assert all(len(value) <= 256 for _, value in header_rules._DECODED)  # long ones not kept


def test_decoded_headers_keep_a_bounded_number() -> None:
    for n in range(3 * header_rules._DECODED_MAX_ENTRIES):
        assert decode_headers([(b"content-length", b"%d" % n)]) == {"content-length": str(n)}
        assert len(header_rules._DECODED) <= header_rules._DECODED_MAX_ENTRIES


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


# Values no browser sends: lists, userinfo, paths, suffixes after an address, bad ports.
HOSTILE_HOSTS = [
    "[::1].evil.example",
    "[::1]evil.example",
    "[::1]:80.evil.example",
    "localhost:80, evil.example",
    "localhost, evil.example",
    "localhost evil.example",
    "localhost:80:81",
    "localhost:",
    "localhost:-1",
    "localhost:+80",
    "localhost:99999",
    "localhost:80x",
    "user@localhost",
    "evil.example@localhost",
    "localhost/path",
    "localhost?x",
    "localhost#x",
    "localhost\\evil.example",
    "127.0.0.1:8000.evil.example",
    "127.1",
    "127.000.000.001",
    "2130706433",
    "[::1",
    "::1",
    "[fe80::1%25eth0]",
    "[localhost]",
    "",
    " ",
    "local host",
    "localhost\t",
    "lo\u0441alhost",
    "..",
    ".localhost",
]
VALID_HOSTS = [
    ("localhost", True),
    ("localhost:8000", True),
    ("LOCALHOST:8000", True),
    ("127.0.0.1", True),
    ("127.0.0.1:65535", True),
    ("[::1]", True),
    ("[::1]:8000", True),
    ("[0:0:0:0:0:0:0:1]:8000", True),
    ("evil.example", False),
    ("localhost.evil.example:8000", False),
    ("127.0.0.2", False),
    ("127.0.0.1.evil.example", False),  # a DNS name, not the address
]


@pytest.mark.parametrize("host", HOSTILE_HOSTS)
def test_hostile_host_values_are_refused(host: str) -> None:
    assert parse_authority(host) is None
    assert not host_allowed(host, LOOPBACK_HOSTS)
    assert not host_allowed(host, ("*",))  # "*" allows every name, not every string


@pytest.mark.parametrize(("host", "allowed"), VALID_HOSTS)
def test_valid_host_values(host: str, allowed: bool) -> None:
    assert parse_authority(host) is not None
    assert host_allowed(host, LOOPBACK_HOSTS) is allowed
    assert host_allowed(host, ("*",))


HOSTILE_ORIGINS = [
    "http://127.0.0.1:8000.evil.example",
    "http://[::1]:1@evil.example",
    "http://localhost@evil.example",
    "http://evil.example@localhost",
    "http://user:pass@localhost:8000",
    "http://localhost:8000/",
    "http://localhost:8000/path",
    "http://localhost:8000?x",
    "http://localhost:8000#x",
    "http://localhost, http://evil.example",
    "http://localhost http://evil.example",
    "http://[::1].evil.example",
    "http://localhost:80, evil.example",
    "http://localhost:",
    "http://localhost:99999",
    "HTTP://localhost",
    "http:/localhost",
    "http//localhost",
    "//localhost",
    "localhost",
    "http://",
]


@pytest.mark.parametrize("origin", HOSTILE_ORIGINS)
def test_hostile_origin_values_are_refused(origin: str) -> None:
    assert not origin_allowed(origin, LOOPBACK_HOSTS, ())
    assert not origin_allowed(origin, LOOPBACK_HOSTS, ("*",))


@pytest.mark.parametrize(
    ("origin", "origins", "allowed"),
    [
        ("http://localhost", (), True),
        ("http://localhost:5173", (), True),
        ("https://127.0.0.1:5173", (), True),
        ("http://[::1]:5173", (), True),
        ("https://evil.example", (), False),
        ("http://127.0.0.1.evil.example", (), False),
        ("null", (), False),
        ("ftp://localhost", (), False),  # a page of this server is served over HTTP
        ("file://localhost", (), False),
        ("null", ("null",), True),
        ("https://app.example", ("https://app.example",), True),
        ("https://app.example:8443", ("*",), True),
        ("https://app.example", ("https://other.example",), False),
    ],
)
def test_valid_origin_values(origin: str, origins: tuple[str, ...], allowed: bool) -> None:
    assert origin_allowed(origin, LOOPBACK_HOSTS, origins) is allowed
