"""runtime/exact_json.loads: integers of any size exact; the search for a run of 19
digits (the second parse's trigger) skipped for bytes holding fewer than 19 digits."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from mcp_schemagen.runtime import exact_json

CALL = (
    b'{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"t","arguments":{"n":7}}}'
)


class CountingSearch:
    """Stands in for the compiled pattern, counting its searches."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self.pattern = pattern
        self.searches = 0

    def search(self, raw: Any) -> Any:
        self.searches += 1
        return self.pattern.search(raw)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> CountingSearch:
    spy = CountingSearch(exact_json._LONG_DIGITS_BYTES)
    monkeypatch.setattr(exact_json, "_LONG_DIGITS_BYTES", spy)
    return spy


def test_a_message_with_few_digits_is_not_searched(counted: CountingSearch) -> None:
    assert exact_json.loads(CALL) == orjson.loads(CALL)
    assert counted.searches == 0


def test_many_digits_not_in_one_run_are_searched_and_read_by_orjson(
    counted: CountingSearch,
) -> None:
    spread = b'{"a":[123456789,123456789,123456789],"b":1.5}'  # 28 digits, no run of 19
    assert exact_json.loads(spread) == orjson.loads(spread)
    assert counted.searches == 1


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id":18446744073709551616,"n":-99999999999999999999}',
        bytearray(b'{"id":18446744073709551616}'),
        memoryview(b'{"id":18446744073709551616}'),
        '{"id":18446744073709551616}',
    ],
)
def test_integers_beyond_64_bits_stay_exact_from_bytes_bytearray_memoryview_and_text(
    raw: Any,
) -> None:
    value = exact_json.loads(raw)
    assert value["id"] == 2**64 and type(value["id"]) is int
    if "n" in value:
        assert value["n"] == -99999999999999999999
