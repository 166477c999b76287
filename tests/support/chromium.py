"""Headless Chromium (the Debian package) driven through its DevTools protocol over a
pipe (``--remote-debugging-pipe``: fd 3 in, fd 4 out, NUL-terminated JSON), so the tests
need no WebSocket client and Chromium listens on no port. Every wait is bounded."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REPLY_TIMEOUT_S = 30.0


class Chromium:
    """One browser process with one page; ``command`` sends a DevTools command to it."""

    def __init__(self, profile: Path, log: Path) -> None:
        assert CHROMIUM is not None, "chromium is not installed (apt-get install chromium)"
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def pipes_as_3_and_4() -> None:  # in the child, before exec
            # Moved out of the way first, in case a pipe already sits at 3 or 4; dup2's
            # copies are inheritable, and close_fds=False keeps them through exec (every
            # other descriptor Python opened is non-inheritable, so nothing else leaks).
            reading = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            writing = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self._log = log.open("wb")
        self.process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless=new",
                "--remote-debugging-pipe",
                "--no-sandbox",  # tests run as root in CI containers
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--window-size=800,600",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=pipes_as_3_and_4,  # only dup2 calls: safe after fork
            close_fds=False,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session = ""

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                parsed = json.loads(message)
                if "id" in parsed:
                    with self._arrived:
                        self._replies[parsed["id"]] = parsed
                        self._arrived.notify_all()

    def command(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        with self._arrived:
            while self._next_id not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise TimeoutError(
                        f"chromium did not answer {method} within {REPLY_TIMEOUT_S} s"
                    )
                self._arrived.wait(min(left, 0.5))
            reply = self._replies.pop(self._next_id)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def open(self, url: str) -> None:
        """A new page at ``url``, attached: later page commands go to it."""
        target = self.command("Target.createTarget", url=url)["targetId"]
        self.session = self.command("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]

    def evaluate(self, expression: str) -> Any:
        result = self.command(
            "Runtime.evaluate", self.session, expression=expression, returnByValue=True
        )
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float) -> Any:
        """Evaluate ``expression`` until it is truthy; its last value when time runs out."""
        deadline = time.monotonic() + timeout
        value = self.evaluate(expression)
        while not value and time.monotonic() < deadline:
            time.sleep(0.2)
            value = self.evaluate(expression)
        return value

    def screenshot(self, path: Path) -> Path:
        data = self.command("Page.captureScreenshot", self.session, format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(TimeoutError, RuntimeError, OSError):
            self.command("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._log.close()
