"""Skipped tests are never silent: the run's summary lists every reason tests were skipped
for (a whole category, such as the scale-out tests without redis-server, shows up there),
and under CI (``CI=true``) a skip is a failure, since CI is where everything must run.

A skip decided as a test runs (``pytest.skip``, ``skipif``) fails that test. A skip at
collection (a module's ``pytest.importorskip``, ``pytest.skip(allow_module_level=True)``)
skips a whole file before it has tests to fail; under CI it fails the run instead: the
exit status is that of failed tests, and the summary names each file and why."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Generator

import pytest

CI_ENV = "CI"


def under_ci() -> bool:
    return os.environ.get(CI_ENV, "").strip().lower() in {"1", "true", "yes"}


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str | None:
    """Why a test was skipped, or None when it was not (an expected failure is not a skip)."""
    if not report.skipped or hasattr(report, "wasxfail"):
        return None
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    reason = skip_reason(report)
    if reason is not None and under_ci():
        report.outcome = "failed"
        report.longrepr = (
            f"skipped under CI ({CI_ENV}={os.environ[CI_ENV]}), where every test must run: {reason}"
        )


def pytest_collectreport(report: pytest.CollectReport) -> None:
    reason = skip_reason(report)
    if reason is not None and under_ci():
        _skipped_at_collection.append(f"{report.nodeid or '(the session)'}: {reason}")


_skipped_at_collection: list[str] = []  # under CI: the files skipped whole, and why


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if _skipped_at_collection and session.exitstatus in (pytest.ExitCode.OK, 5):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipped_at_collection:
        terminalreporter.section("skipped at collection under CI: the run fails", sep="=", red=True)
        for line in _skipped_at_collection:
            terminalreporter.line(
                f"skipped under CI ({CI_ENV}={os.environ.get(CI_ENV, '')}), where every test "
                f"must run: {line}"
            )
    reasons: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        reason = skip_reason(report)
        if reason is not None:
            reasons[reason] += 1
    if not reasons:
        return
    terminalreporter.section("skipped categories", sep="=", yellow=True)
    for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
        terminalreporter.line(f"{count:4d} skipped: {reason}")
    terminalreporter.line(f"(with {CI_ENV}=true these skips fail the run)")
