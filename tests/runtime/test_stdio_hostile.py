"""The stdio server survives every client: a fuzz corpus where every request gets exactly
one schema-exact reply, bounded memory under a client that stops reading, sync handlers
that block nothing, and a handler module that prints at import.

Each test runs ``python -m PACKAGE`` (the fixture package, with the generator's own
``__main__`` template) and reads the server's peak RSS from /proc.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.support.runtime_fixture import PACKAGE, REVISIONS, build_package
from tests.support.stdio_conversation import STATELESS, Conversation, meta

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads peak memory from /proc"
)

EXTRA_HANDLERS = """

import time as _time


def blob(*, size: int, fill: str = "x") -> str:
    return fill * size


async def blob_async(*, size: int) -> str:
    await asyncio.sleep(0)
    return "y" * size


def nap(*, seconds: float) -> str:
    _time.sleep(seconds)  # blocks its thread, never the server
    return "rested"


async def unsendable() -> Any:
    return object()


async def ask() -> str:
    from ._runtime.asking.questions import form

    answer = await get_context().elicit("Go on?", form({"ok": {"type": "boolean"}}))
    return answer.action
"""

EXTRA_TOOLS = """

_SIZE = {"type": "object", "properties": {"size": {"type": "integer", "minimum": 0,
         "maximum": 10000000}, "fill": {"type": "string", "minLength": 1, "maxLength": 1}},
         "required": ["size"]}
TOOLS = TOOLS + (
    _entry({"name": "blob", "description": "A long text (sync)", "inputSchema": _SIZE},
           handlers.blob),
    _entry({"name": "blob_async", "description": "A long text (async)", "inputSchema": _SIZE},
           handlers.blob_async),
    _entry({"name": "nap", "description": "time.sleep in a sync handler", "inputSchema": {
        "type": "object", "properties": {"seconds": {"type": "number", "maximum": 5}},
        "required": ["seconds"]}}, handlers.nap),
    _entry({"name": "unsendable", "description": "Returns an object",
            "inputSchema": {"type": "object"}}, handlers.unsendable),
    _entry({"name": "ask", "description": "Elicits the client",
            "inputSchema": {"type": "object"}}, handlers.ask),
)
SERVER = Server(tools=TOOLS, name="fake", version="0.0.1", revisions=REVISIONS, page_size=4)
"""

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def package_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_package(tmp_path_factory.mktemp("hostile"))
    with (root / PACKAGE / "handlers.py").open("a") as handlers:
        handlers.write(EXTRA_HANDLERS)
    with (root / PACKAGE / "_dispatch.py").open("a") as dispatch:
        dispatch.write(EXTRA_TOOLS)
    return root


def peak_rss(pid: int) -> int:
    """The process's peak resident memory so far, in bytes (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc")


def handshake(conversation: Conversation) -> None:
    if conversation.revision == STATELESS:
        return
    result = conversation.result(
        "initialize",
        {
            "protocolVersion": conversation.revision,
            "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "1"},
        },
    )
    assert result["protocolVersion"] == conversation.revision
    conversation.notify("notifications/initialized")


def call_params(revision: str, name: str, arguments: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    if revision == STATELESS:
        params["_meta"] = meta()
    return params


# ---------------------------------------------------------- stdout is the protocol's


def test_a_print_at_the_top_of_handlers_never_reaches_the_protocol_stream(
    tmp_path: Path,
) -> None:
    root = build_package(tmp_path)
    handlers = root / PACKAGE / "handlers.py"
    with handlers.open("a") as module:  # runs when the server imports handlers.py
        module.write(
            '\nprint("import-time noise")\nimport os as _os\n_os.write(1, b"raw fd noise\\n")\n'
        )
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18"},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE],
        cwd=root,
        input=b"".join(orjson.dumps(r) + b"\n" for r in requests),
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert [orjson.loads(line)["id"] for line in done.stdout.splitlines()] == [1, 2]
    assert b"import-time noise" in done.stderr and b"raw fd noise" in done.stderr


# ------------------------------------------------------------ sync handlers (issue 9.11)


def test_a_blocking_sync_handler_holds_up_nothing(package_root: Path, tmp_path: Path) -> None:
    conversation = Conversation(package_root, PACKAGE, "2025-11-25", tmp_path / "stderr")
    try:
        handshake(conversation)
        napping = conversation.start("tools/call", call_params("2025-11-25", "nap", {"seconds": 2}))
        ping = conversation.start("ping")
        listing = conversation.start("tools/list")
        conversation.wait(listing)
        assert ping in conversation.responses and napping not in conversation.responses
        assert conversation.wait(napping)["result"]["content"][0]["text"] == "rested"
    finally:
        conversation.kill()


# ----------------------------------------------------------- backpressure (issue 10.8)


@pytest.mark.parametrize("tool", ["blob", "blob_async"])
def test_memory_stays_bounded_while_the_client_stops_reading(package_root: Path, tool: str) -> None:
    """300 calls of 1 MiB each, none of them read for a while: the server stops taking
    requests instead of buffering 300 MiB; then every reply arrives, once."""
    calls = 300
    process = subprocess.Popen(
        [sys.executable, "-m", PACKAGE],
        cwd=package_root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        lines = [
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": "2025-06-18"},
            },
            *(
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": {"size": MIB}},
                }
                for i in range(1, calls + 1)
            ),
        ]
        data = b"".join(orjson.dumps(line) + b"\n" for line in lines)

        def feed() -> None:  # the server may stop reading: never block the test on it
            assert process.stdin is not None
            process.stdin.write(data)
            process.stdin.close()

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        time.sleep(3)  # the client reads nothing meanwhile
        held_back = peak_rss(process.pid)
        seen: Counter[Any] = Counter()
        for line in process.stdout:
            seen[orjson.loads(line)["id"]] += 1
            if len(seen) == calls // 2:  # half read: the server still has replies to write
                peak = peak_rss(process.pid)
        assert process.wait(timeout=30) == 0
        feeder.join(timeout=5)
    finally:
        process.kill()
        process.wait()
    print(f"\n{tool}: {calls} x 1 MiB unread: peak RSS {held_back / MIB:.0f} MiB held back")
    assert seen == Counter(range(calls + 1))  # every request answered exactly once
    # Unbounded buffering needs > 300 MiB here; the bound is a round of started requests
    # (none starts while the writer is congested or sync calls wait for a thread), the
    # write buffer and the largest reply, over an idle server of about 30 MiB.
    assert held_back < 150 * MIB, held_back / MIB
    assert peak < 200 * MIB


# ------------------------------------------- bounded work that never blocks (issue 20)


class _Client:
    """A raw stdio client: lines written at once, every message read in a thread with the
    time it arrived."""

    def __init__(self, root: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", PACKAGE, *args],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=None if env is None else {**os.environ, **env},
        )
        self.received: list[tuple[float, dict[str, Any]]] = []
        self._lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._lock:
                self.received.append((time.monotonic(), orjson.loads(line)))
                self._lock.notify_all()

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(orjson.dumps(m) + b"\n" for m in messages))
        self.process.stdin.flush()

    def wait_for(self, test: Any, count: int = 1, timeout: float = 20.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = [m for _, m in self.received if test(m)]
                if len(found) >= count or time.monotonic() > deadline:
                    return found
                self._lock.wait(0.1)

    def arrival(self, request_id: Any) -> float:
        with self._lock:
            return next(
                t for t, m in self.received if m.get("id") == request_id and "method" not in m
            )

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def _initialize(capabilities: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def _call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_a_thousand_async_calls_run_at_once_and_a_ping_never_waits(package_root: Path) -> None:
    """1,000 two-second async calls: all finish in about two seconds (the default bound
    suits I/O-bound handlers), and a ping sent behind them is answered at once."""
    calls = 1000
    client = _Client(package_root)
    try:
        client.send(*_initialize({}))
        assert client.wait_for(lambda m: m.get("id") == "init")
        started = time.monotonic()
        client.send(*(_call(i, "slow", {"seconds": 2}) for i in range(calls)))
        sent_ping = time.monotonic()
        client.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
        assert client.wait_for(lambda m: m.get("id") == "ping", timeout=10)
        answers = client.wait_for(lambda m: isinstance(m.get("id"), int), calls, timeout=30)
        finished = time.monotonic()
        assert len(answers) == calls
        assert all(a["result"]["content"][0]["text"] == "slept" for a in answers)
        ping_wait = client.arrival("ping") - sent_ping
    finally:
        client.close()
    print(f"\n{calls} x 2 s async calls: {finished - started:.2f} s; ping {ping_wait:.3f} s")
    assert ping_wait < 1.0  # not behind the calls (each takes 2 s)
    assert finished - started < 6.0  # about 2 s; 32 at a time needed 63 s


def test_answers_to_the_servers_requests_pass_requests_waiting_for_a_slot(
    package_root: Path,
) -> None:
    """Every slot holds a handler waiting for the client's answer, and a new request waits
    for a slot: the answers sent after it still reach the handlers (no deadlock)."""
    limit = 4
    client = _Client(package_root, env={"MCP_MAX_CONCURRENT_REQUESTS": str(limit)})
    try:
        client.send(*_initialize({"elicitation": {}}))
        assert client.wait_for(lambda m: m.get("id") == "init")
        client.send(*(_call(i, "ask", {}) for i in range(limit + 1)))  # one waits for a slot

        def asked(m: dict[str, Any]) -> bool:
            return m.get("method") == "elicitation/create"

        questions = client.wait_for(asked, limit, timeout=10)
        assert len(questions) == limit  # the fifth waits for a slot
        client.send(_call(100, "ask", {}))  # a new request queued before the answers
        answer = {"action": "accept", "content": {"ok": True}}
        client.send(*({"jsonrpc": "2.0", "id": q["id"], "result": answer} for q in questions))
        more = client.wait_for(asked, limit + 2, timeout=10)  # the queued two ask now
        assert len(more) == limit + 2
        client.send(*({"jsonrpc": "2.0", "id": q["id"], "result": answer} for q in more[limit:]))
        results = client.wait_for(lambda m: m.get("id") in {*range(limit + 1), 100}, limit + 2)
        assert sorted(r["id"] for r in results) == [*range(limit + 1), 100]
        assert all(r["result"]["content"][0]["text"] == "accept" for r in results)
    finally:
        client.close()


def test_the_concurrency_bound_is_an_option_and_documented(package_root: Path) -> None:
    shown = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--help"], cwd=package_root, capture_output=True, text=True
    )
    assert "--max-concurrent-requests" in shown.stdout
    assert "MCP_MAX_CONCURRENT_REQUESTS" in shown.stdout
    for bad in (["--max-concurrent-requests", "0"], ["--max-concurrent-requests", "x"]):
        refused = subprocess.run(
            [sys.executable, "-m", PACKAGE, *bad], cwd=package_root, capture_output=True, text=True
        )
        assert refused.returncode == 2 and "positive integer" in refused.stderr
    refused = subprocess.run(
        [sys.executable, "-m", PACKAGE],
        cwd=package_root,
        capture_output=True,
        text=True,
        env={**os.environ, "MCP_MAX_CONCURRENT_REQUESTS": "-3"},
    )
    assert refused.returncode == 2 and "MCP_MAX_CONCURRENT_REQUESTS" in refused.stderr
    # The option bounds the calls: with 1, two 1-second calls take two seconds.
    client = _Client(package_root, "--max-concurrent-requests", "1")
    try:
        client.send(*_initialize({}))
        assert client.wait_for(lambda m: m.get("id") == "init")
        started = time.monotonic()
        client.send(_call(1, "slow", {"seconds": 1}), _call(2, "slow", {"seconds": 1}))
        assert len(client.wait_for(lambda m: m.get("id") in (1, 2), 2)) == 2
        assert time.monotonic() - started >= 1.9
    finally:
        client.close()


# -------------------------------------------------------------------------- the fuzz


@dataclass
class Corpus:
    """Messages for one revision and what each must get back."""

    revision: str
    rng: random.Random
    lines: list[bytes] = field(default_factory=list)
    answered: list[Any] = field(default_factory=list)  # ids that get exactly one reply
    silent: list[Any] = field(default_factory=list)  # ids that get none (cancelled)
    anonymous: int = 0  # messages answered by an error without an id
    kinds: Counter[str] = field(default_factory=Counter)
    _next: int = 1000

    def new_id(self) -> Any:
        self._next += 1
        roll = self.rng.random()
        if roll < 0.2:
            return f"req-{self._next}-\u00e9\U0001f600"
        if roll < 0.25:
            return 18446744073709551615 - self._next  # beyond int64, inside uint64
        if roll < 0.3:
            return -self._next
        return self._next

    @property
    def stateless(self) -> bool:
        return self.revision == STATELESS

    def params(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.stateless:
            return {**params, "_meta": {**meta(), **params.get("_meta", {})}}
        return params


def _string(rng: random.Random) -> str:
    return rng.choice(
        [
            "",
            "Oslo",
            "x" * rng.choices([1, 300, 5_000_000], weights=[10, 5, 1])[0],
            "\u202e\u0000\ud7ff\t\n\"'\\",
            "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(20)),
        ]
    )


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.randrange(9 if depth < 3 else 6)
    if roll == 0:
        return None
    if roll == 1:
        return rng.choice([True, False])
    if roll == 2:
        return rng.choice([0, -1, 2**53, 2**63 - 1, -(2**63), 2**64 - 1])
    if roll == 3:
        return rng.choice([0.5, -1e308, 1e-320])
    if roll in (4, 5):
        return _string(rng)
    if roll == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if roll == 7:
        return _nested(rng.choice([10, 200]))  # deeper: orjson refuses to encode it
    return {_string(rng)[:50]: _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


VALID_CALLS: list[tuple[str, dict[str, Any] | None]] = [
    ("get_weather", {"location": "Oslo"}),
    ("get_weather", {"location": "Oslo", "units": "fahrenheit"}),
    ("server_time", None),
    ("create_order", {"customer": {"name": "Ada"}, "items": [{"sku": "a", "quantity": 2}]}),
    ("divide", {"a": 1, "b": 3}),
    ("divide", {"a": 1, "b": 0}),  # ZeroDivisionError: an isError result
    ("broken_output", {}),
    ("render_chart", {"title": "t"}),
    ("fail", {}),
    ("slow", {"seconds": 0.01}),
    ("long_job", {"steps": 2}),
    ("blob", {"size": 100_000}),
    ("blob_async", {"size": 10}),
    ("nap", {"seconds": 0.01}),
    ("unsendable", None),
]
# Tools any valid arguments keep short (slow and long_job may validly run for hours, and a
# request still running when stdin closes is cancelled after the grace period).
BOUNDED_TOOLS = sorted({name for name, _ in VALID_CALLS} - {"slow", "long_job"})


def _request(corpus: Corpus) -> dict[str, Any]:
    """One request the server must answer, valid or not."""
    rng = corpus.rng
    roll = rng.randrange(12)
    if roll < 4:
        name, arguments = rng.choice(VALID_CALLS)
        params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
        method = "tools/call"
    elif roll < 7:
        arguments = {rng.choice(["location", "units", "size", "a", "steps", "x"]): _value(rng)}
        if rng.random() < 0.3:
            arguments = _value(rng)
        params = {"name": rng.choice(BOUNDED_TOOLS), "arguments": arguments}
        method = "tools/call"
    elif roll == 7:
        params, method = {"name": _string(rng)}, "tools/call"
    elif roll == 8:
        method = "tools/list"
        params = rng.choice([{}, {"cursor": _value(rng)}, {"cursor": "dG9vbHM6MQ=="}])
    elif roll == 9:
        method = rng.choice(["ping", "logging/setLevel", "server/discover", "resources/list"])
        params = {"level": _value(rng)} if method == "logging/setLevel" else {}
    elif roll == 10:
        # A stateless client never initializes: its replies would be of another revision.
        method = rng.choice(
            [
                _string(rng),
                "notifications/initialized",
                *(() if corpus.stateless else ("initialize",)),
            ]
        )
        params = {"protocolVersion": rng.choice([*REVISIONS, "1999-01-01"]), "capabilities": {}}
    else:  # a bad envelope: the stateless era's fields, a progress token of any kind
        method = "tools/call"
        params = {
            "name": "long_job",
            "arguments": {"steps": 1},
            "_meta": rng.choice(
                [
                    {"io.modelcontextprotocol/protocolVersion": "2031-01-01"},
                    {"io.modelcontextprotocol/protocolVersion": 5},
                    {"progressToken": _value(rng)},
                ]
            ),
        }
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": corpus.new_id(), "method": method}
    if rng.random() < 0.9:
        message["params"] = corpus.params(params)
    elif rng.random() < 0.5:
        message["params"] = rng.choice([[1], "x", 3])
    if rng.random() < 0.03:
        message["jsonrpc"] = rng.choice(["1.0", None])
    return message


def _add(corpus: Corpus, message: Any) -> None:
    corpus.lines.append(orjson.dumps(message))


def _case(corpus: Corpus) -> None:
    rng = corpus.rng
    roll = rng.randrange(20)
    if roll < 10:
        message = _request(corpus)
        corpus.answered.append(message["id"])
        corpus.kinds["request"] += 1
        _add(corpus, message)
    elif roll == 10:  # notifications, answers to nothing: no reply
        corpus.kinds["notification"] += 1
        _add(
            corpus,
            rng.choice(
                [
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": _value(rng)},
                    },
                    {"jsonrpc": "2.0", "method": _string(rng)[:100], "params": _value(rng)},
                    {"jsonrpc": "2.0", "id": corpus.new_id(), "result": {}},
                    {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}},
                ]
            ),
        )
    elif roll == 11:  # a request whose id cannot be read
        request_id = rng.choice([1.5, True, None, {"a": 1}, [1], 2**64, -(2**64)])
        if isinstance(request_id, int) and not isinstance(request_id, bool):
            # An integer id of any size is an id: read exactly, answered under it.
            corpus.kinds["big id"] += 1
            corpus.answered.append(request_id)
            params = orjson.dumps(meta_params(corpus.revision) or {})
            corpus.lines.append(
                b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":%s}' % (request_id, params)
            )
        else:
            corpus.kinds["bad id"] += 1
            corpus.anonymous += 1
            _add(corpus, {"jsonrpc": "2.0", "id": request_id, "method": "ping"})
    elif roll == 12:  # not a message at all
        corpus.kinds["junk"] += 1
        junk = rng.choice(
            [
                b"{",
                b"\xff\xfe\x00garbage",
                b"42",
                b'"text"',
                b"null",
                b"[" * 2000 + b"]" * 2000,
                b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1e999}}',
                b'{"jsonrpc":"2.0"}',
                b'{"method":5}',
            ]
        )
        corpus.anonymous += 1
        corpus.lines.append(junk)
    elif roll == 13:  # a batch
        corpus.kinds["batch"] += 1
        members = [_request(corpus) for _ in range(rng.randrange(1, 6))]
        if corpus.revision == "2025-03-26":
            corpus.answered += [m["id"] for m in members]
        else:
            corpus.anonymous += 1  # batches exist in 2025-03-26 only
        _add(corpus, members)
    elif roll == 14:  # a long call, then its cancellation: no reply
        corpus.kinds["cancelled"] += 1
        message = {
            "jsonrpc": "2.0",
            "id": corpus.new_id(),
            "method": "tools/call",
            "params": corpus.params({"name": "slow", "arguments": {"seconds": 60}}),
        }
        corpus.silent.append(message["id"])
        _add(corpus, message)
        _add(
            corpus,
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": message["id"], "reason": "fuzz"},
            },
        )
    elif roll == 15:
        corpus.kinds["blank"] += 1
        corpus.lines.append(rng.choice([b"", b"   ", b"\r"]))
    else:  # a request without a method, or with a method that is not a string
        corpus.kinds["malformed request"] += 1
        message = {"jsonrpc": "2.0", "id": corpus.new_id()}
        if rng.random() < 0.5:
            message["method"] = rng.choice([5, None, ["ping"]])
        corpus.answered.append(message["id"])
        _add(corpus, message)


def _flatten(received: list[Any]) -> Iterator[dict[str, Any]]:
    for message in received:
        if isinstance(message, list):
            yield from message
        else:
            yield message


CASES_PER_REVISION = 500


@pytest.mark.parametrize("revision", REVISIONS)
def test_fuzz_every_request_gets_exactly_one_exact_reply(
    revision: str, package_root: Path, tmp_path: Path
) -> None:
    corpus = Corpus(revision, random.Random(f"mcp-codegen fuzz {revision}"))
    for _ in range(CASES_PER_REVISION):
        _case(corpus)
    conversation = Conversation(package_root, PACKAGE, revision, tmp_path / "stderr")
    try:
        handshake(conversation)
        before = len(conversation.received)
        for line in corpus.lines:
            _remember(conversation, line)  # the checker needs the method of each id
            conversation.send_raw(line)
        ping = conversation.start("ping", meta_params(revision))
        conversation.wait(ping)
        peak = peak_rss(conversation.process.pid)
        assert conversation.close() == 0
    finally:
        conversation.kill()
    received = list(_flatten(conversation.received[before:]))
    by_id = Counter(
        json.dumps(m["id"]) for m in received if "method" not in m and m.get("id") is not None
    )
    expected = Counter(json.dumps(i) for i in [*corpus.answered, ping])
    assert by_id == expected, (by_id - expected, expected - by_id)
    assert not any(json.dumps(i) in by_id for i in corpus.silent)
    anonymous = [m for m in received if "method" not in m and m.get("id") is None]
    assert len(anonymous) == corpus.anonymous
    print(
        f"\nfuzz {revision}: {len(corpus.lines)} lines ({dict(corpus.kinds)}), "
        f"{sum(expected.values())} requests answered once each, {len(anonymous)} errors "
        f"without id, {len(corpus.silent)} cancelled unanswered, {conversation.checked} "
        f"messages checked against the schema; peak RSS {peak / MIB:.0f} MiB"
    )
    assert peak < 250 * MIB  # 5 MB strings arrive; none is kept or echoed whole


def meta_params(revision: str) -> dict[str, Any] | None:
    return {"_meta": meta()} if revision == STATELESS else None


def _remember(conversation: Conversation, line: bytes) -> None:
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError:
        return
    members = message if isinstance(message, list) else [message]
    for member in members:
        if isinstance(member, dict) and "id" in member and "method" in member:
            # An id that cannot be a key (a list, an object) is answered without an id.
            with contextlib.suppress(TypeError):
                conversation.pending[member["id"]] = member["method"]
