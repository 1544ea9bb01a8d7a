"""scripts/lib/summary.py: the closing line CI reads, and why each failed test failed."""

import json
import subprocess
import sys
from pathlib import Path

SUMMARY = Path(__file__).resolve().parents[2] / "scripts" / "lib" / "summary.py"

GTEST_OUTPUT = """[ RUN      ] Backends/ParkedSettles.Stale/rabbitmq
[worker log 2] could not settle job 1 (acknowledge)
../tests/worker/parked_settles_test.cpp:331: Failure
Expected equality of these values:
  counters.parked
    Which is: 1
  0u
    Which is: 0
a delivery of the replaced connection was kept
[  FAILED  ] Backends/ParkedSettles.Stale/rabbitmq (1883 ms)
"""


def run_summary(tmp_path, entries, *extra, log_name="testlog.json"):
    log = tmp_path / "meson-logs" / log_name
    log.parent.mkdir()
    log.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return subprocess.run([sys.executable, str(SUMMARY), *extra, str(log)],
                          capture_output=True, text=True, check=False)


def test_a_failed_gtest_shows_its_failure_block_before_its_name(tmp_path):
    done = run_summary(tmp_path, [
        {"name": "queuey:unit / ok", "result": "OK", "stdout": "fine: Failure\n"},
        {"name": "queuey:worker / parked", "result": "FAIL", "stdout": GTEST_OUTPUT,
         "stderr": ""},
    ])
    lines = done.stdout.splitlines()
    assert done.returncode == 1
    assert lines[-1] == "1 passed, 1 failed"
    assert lines[-2] == f"failed: {tmp_path}/queuey:worker / parked (FAIL)"
    assert lines[:-2] == [
        "  | ../tests/worker/parked_settles_test.cpp:331: Failure",
        "  | Expected equality of these values:",
        "  |   counters.parked",
        "  |     Which is: 1",
        "  |   0u",
        "  |     Which is: 0",
    ]


def test_a_failed_pytest_shows_its_assertion_lines_from_stderr_too(tmp_path):
    done = run_summary(tmp_path, [{
        "name": "queuey:cli / cli", "result": "FAIL", "stdout": "..F\nE   assert 1 == 2\n",
        "stderr": "FAILED test_tools.py::test_x - assert 1 == 2\n",
    }])
    assert done.stdout.splitlines()[:2] == [
        "  | E   assert 1 == 2", "  | FAILED test_tools.py::test_x - assert 1 == 2"]


def test_the_reasons_of_one_test_are_capped(tmp_path):
    done = run_summary(tmp_path, [{"name": "t", "result": "TIMEOUT",
                                   "stdout": "E   boom\n" * 100}])
    assert done.stdout.splitlines().count("  | E   boom") == 30


def test_results_not_from_meson_and_a_missing_log_count(tmp_path):
    done = subprocess.run([sys.executable, str(SUMMARY), "--result", "fuzz=OK",
                           "--result", "build-asan/ build=FAIL", str(tmp_path / "none.json")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == "1 passed, 2 failed"


def test_a_log_kept_per_broker_version_names_the_version_of_its_failures(tmp_path):
    done = run_summary(tmp_path, [{"name": "queuey:integration / c", "result": "FAIL"}],
                       log_name="testlog-rabbitmq-4.0.json")
    assert done.stdout.splitlines()[-2] == (
        f"failed: {tmp_path}/ (rabbitmq-4.0) queuey:integration / c (FAIL)")
