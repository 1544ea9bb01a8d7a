#!/usr/bin/env python3
"""Totals meson test logs into the one closing line that CI reads.

    summary.py [--result NAME=RESULT]... [TESTLOG.json]...

Each TESTLOG is a meson-logs/testlog.json: one JSON object per line with at least
"name" and "result". A test passes when its result is OK or EXPECTEDFAIL, is skipped
when it is SKIP, and fails otherwise (FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS, ...).
--result adds one outcome that did not come from meson, e.g. `fuzz=OK` or
`build-asan/ build=FAIL`. A TESTLOG that is missing or unreadable counts as one failure.

Prints the failed tests, each with the lines of its output that say why (gtest's
`Failure` blocks, pytest's `E` and `FAILED` lines; at most 30 a test, since CI keeps only
the tail of what was printed), then as its last line

    N passed, N failed[, N skipped]

and exits 1 when anything failed or nothing ran (only skips, or no tests), else 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field

PASSED = {"OK", "EXPECTEDFAIL"}
SKIPPED = {"SKIP"}


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)
    reasons: dict[str, list[str]] = field(default_factory=dict)

    def add(self, name: str, result: str, output: str = "") -> None:
        if result in PASSED:
            self.passed += 1
        elif result in SKIPPED:
            self.skipped += 1
        else:
            self.failed += 1
            self.failures.append(f"{name} ({result})")
            self.reasons[self.failures[-1]] = why_failed(output)

    def line(self) -> str:
        text = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            text += f", {self.skipped} skipped"
        return text

    def exit_code(self) -> int:
        return 1 if self.failed or self.passed == 0 else 0


MAX_REASON_LINES = 30
FAILURE_START = re.compile(r": Failure$|^E |^FAILED |^Traceback ")
GTEST_BLOCK_LINES = 6  # a gtest Failure line and the Expected/Which is/message after it


def why_failed(output: str) -> list[str]:
    """The lines of a failed test's output that say what failed."""
    reasons: list[str] = []
    block_left = 0
    for line in output.splitlines():
        if FAILURE_START.search(line):
            block_left = GTEST_BLOCK_LINES if line.endswith(": Failure") else 1
        if block_left:
            reasons.append(line)
            block_left -= 1
        if len(reasons) == MAX_REASON_LINES:
            break
    return reasons


def label_of(path: str) -> str:
    """`build-asan/meson-logs/testlog.json` -> `build-asan/`;
    `build/meson-logs/testlog-rabbitmq-4.0.json` -> `build/ (rabbitmq-4.0) `."""
    marker = "meson-logs/"
    head, _, tail = path.partition(marker)
    if not _:
        return path + " "
    label = head if head.endswith("/") else head + " "
    tag = re.fullmatch(r"testlog-(.+)\.json", tail)
    return f"{label} ({tag.group(1)}) " if tag else label


def read_testlog(path: str, tally: Tally) -> None:
    label = label_of(path)
    try:
        with open(path, encoding="utf-8") as log:
            lines = log.readlines()
    except OSError as e:
        tally.add(f"{path}", f"UNREADABLE: {e.strerror}")
        return
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
            name, result = str(entry["name"]), str(entry["result"])
        except (ValueError, KeyError, TypeError):
            tally.add(f"{path}:{number}", "MALFORMED LINE")
            continue
        output = str(entry.get("stdout") or "") + "\n" + str(entry.get("stderr") or "")
        tally.add(f"{label}{name}", result, output)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("testlogs", nargs="*", metavar="TESTLOG")
    parser.add_argument("--result", action="append", default=[], metavar="NAME=RESULT",
                        help="an outcome not from meson, e.g. fuzz=OK or fuzz=FAIL")
    args = parser.parse_args(argv)

    tally = Tally()
    for path in args.testlogs:
        read_testlog(path, tally)
    for item in args.result:
        name, sep, result = item.rpartition("=")
        if not sep or not name:
            parser.error(f"--result wants NAME=RESULT, got {item!r}")
        tally.add(name, result)

    for failure in tally.failures:
        for line in tally.reasons[failure]:
            print(f"  | {line}")
        print(f"failed: {failure}")
    if tally.passed == 0 and not tally.failed:
        print("no test ran")
    sys.stdout.flush()
    print(tally.line())
    return tally.exit_code()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
