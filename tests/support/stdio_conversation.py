"""A raw JSON-RPC client over a server subprocess's stdio that checks every message the
server sends against the schema of the revision in use (tests/spec_check.py)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.support.spec_check import SpecCheck, spec

STATELESS = "2026-07-28"
RESULTS = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "logging/setLevel": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "server/discover": "DiscoverResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
}
NOTIFICATIONS = {
    "notifications/message": "LoggingMessageNotification",
    "notifications/progress": "ProgressNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
}
SERVER_REQUESTS = {  # what a server may ask its client during a tool call
    "elicitation/create": "ElicitRequest",
    "sampling/createMessage": "CreateMessageRequest",
    "roots/list": "ListRootsRequest",
}
ERROR_OBJECTS = {  # 2026-07-28 names each standard error
    -32700: "ParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
}
ERROR_MESSAGES = {
    -32022: "UnsupportedProtocolVersionError",
    -32021: "MissingRequiredClientCapabilityError",
    -32020: "HeaderMismatchError",
}
TIMEOUT = 15.0


def meta(revision: str = STATELESS, **extra: Any) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": revision,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1"},
        **extra,
    }


class Conversation:
    """Talks to ``python -m PACKAGE`` in ``root`` as a client of ``revision``."""

    def __init__(self, root: Path, package: str, revision: str, stderr: Path) -> None:
        self.revision = revision
        self.spec: SpecCheck = spec(revision)
        self._stderr = stderr.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", package],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._inbox: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 1
        self.pending: dict[Any, str] = {}  # request id -> method
        self.responses: dict[Any, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []  # requests the server sent us
        self.batches: list[list[dict[str, Any]]] = []
        self.anonymous_errors: list[dict[str, Any]] = []
        self.received: list[Any] = []  # every message, in order (duplicates too)
        self.checked = 0

    # ------------------------------------------------------------------ wire

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._inbox.put(line)
        self._inbox.put(None)

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any] | list[Any]) -> None:
        if isinstance(message, dict) and "id" in message and "method" in message:
            self.pending[message["id"]] = message["method"]
        elif isinstance(message, list):
            for item in message:
                if isinstance(item, dict) and "id" in item:
                    self.pending[item["id"]] = item.get("method", "")
        self.send_raw(json.dumps(message).encode())

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def start(self, method: str, params: dict[str, Any] | None = None, *, id: Any = None) -> Any:
        if id is None:
            id = self._next_id
            self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return id

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and return its whole response message."""
        return self.wait(self.start(method, params))

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.request(method, params)
        assert "result" in response, response
        result: dict[str, Any] = response["result"]
        return result

    def error(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.request(method, params)
        assert "error" in response, response
        error: dict[str, Any] = response["error"]
        return error

    def wait(self, id: Any) -> dict[str, Any]:
        while id not in self.responses:
            self._receive_one()
        return self.responses[id]

    def wait_anonymous_error(self) -> dict[str, Any]:
        count = len(self.anonymous_errors)
        while len(self.anonymous_errors) == count:
            self._receive_one()
        return self.anonymous_errors[-1]

    def wait_notification(self, method: str, **params: Any) -> dict[str, Any]:
        """The first notification (already received or still to come) that matches."""
        seen = 0
        while True:
            for message in self.notifications[seen:]:
                if message["method"] == method and all(
                    message["params"].get(k) == v for k, v in params.items()
                ):
                    return message
            seen = len(self.notifications)
            self._receive_one()

    def wait_server_request(self) -> dict[str, Any]:
        """The next request the server sends (elicitation, sampling, roots)."""
        count = len(self.server_requests)
        while len(self.server_requests) == count:
            self._receive_one()
        return self.server_requests[-1]

    def wait_batch(self) -> list[dict[str, Any]]:
        count = len(self.batches)
        while len(self.batches) == count:
            self._receive_one()
        return self.batches[-1]

    def _receive_one(self) -> None:
        try:
            line = self._inbox.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no message from the server within {TIMEOUT} s") from None
        if line is None:
            raise AssertionError("the server closed stdout")
        message = json.loads(line)
        self.check(message)
        self.received.append(message)
        if isinstance(message, list):
            self.batches.append(message)
            for item in message:
                self.responses[item.get("id")] = item
        elif "method" in message and "id" in message:
            self.server_requests.append(message)
        elif "method" in message:
            self.notifications.append(message)
        elif message.get("id") is None:
            self.anonymous_errors.append(message)
        else:
            self.responses[message["id"]] = message

    def close(self) -> int:
        """Close stdin; the server answers what is in flight and exits."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=TIMEOUT)
        self._reader.join(timeout=TIMEOUT)
        while True:
            line = self._inbox.get_nowait() if not self._inbox.empty() else None
            if line is None:
                break
            message = json.loads(line)
            self.check(message)
            self.received.append(message)
            if isinstance(message, dict) and "id" in message:
                self.responses[message["id"]] = message
        self._stderr.close()
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if not self._stderr.closed:
            self._stderr.close()

    # ------------------------------------------------------------ exactness

    def check(self, message: Any) -> None:
        """Every message the server sends is exactly a message of this revision."""
        self.checked += 1
        check = self.spec
        if isinstance(message, list):
            assert check.has("JSONRPCBatchResponse"), f"{self.revision} has no batches: {message}"
            check.assert_exact(message, "JSONRPCBatchResponse")
            for item in message:
                self.check_single(item)
            return
        self.check_single(message)

    def check_single(self, message: dict[str, Any]) -> None:
        check = self.spec
        if "method" in message and "id" in message:
            check.assert_exact(message, "JSONRPCRequest")
            self._check_specific(message, SERVER_REQUESTS[message["method"]])
            return
        if "method" in message:
            check.assert_exact(message, "JSONRPCNotification")
            self._check_specific(message, NOTIFICATIONS[message["method"]])
            return
        if "error" in message:
            self._check_error(message)
            return
        envelope = (
            "JSONRPCResultResponse" if check.has("JSONRPCResultResponse") else "JSONRPCResponse"
        )
        check.assert_exact(message, envelope)
        method = self.pending[message["id"]]
        if message["result"].get("resultType") == "input_required":
            check.assert_exact(message["result"], "InputRequiredResult")
            return
        check.assert_exact(message["result"], RESULTS[method])
        if self.revision == STATELESS and check.has(RESULTS[method] + "Response"):
            check.assert_exact(message, RESULTS[method] + "Response")

    def _check_error(self, message: dict[str, Any]) -> None:
        check = self.spec
        envelope = "JSONRPCErrorResponse" if check.has("JSONRPCErrorResponse") else "JSONRPCError"
        if "id" in message and message["id"] is None:
            # JSON-RPC 2.0 answers a message whose id cannot be read with "id": null. The
            # revisions before 2025-11-25 require an id (string or integer) on every error,
            # so no message can satisfy both; the server follows JSON-RPC there and leaves
            # the id out from 2025-11-25 on, where the schema allows it.
            assert self.revision < "2025-11-25", f"{self.revision} allows leaving the id out"
            assert message["error"]["code"] in (-32700, -32600), message
            message = {**message, "id": 0}
        check.assert_exact(message, envelope)
        code = message["error"]["code"]
        if self.revision == STATELESS:
            if code in ERROR_OBJECTS:
                check.assert_exact(message["error"], ERROR_OBJECTS[code])
            else:
                check.assert_exact(message, ERROR_MESSAGES[code])

    def _check_specific(self, message: dict[str, Any], definition: str) -> None:
        node = self.spec.definitions[definition]
        if "jsonrpc" not in node.get("properties", {}):
            # Before 2025-11-25 the specific definitions leave the envelope to JSONRPC*.
            message = {k: v for k, v in message.items() if k not in ("jsonrpc", "id")}
        self.spec.assert_exact(message, definition)
