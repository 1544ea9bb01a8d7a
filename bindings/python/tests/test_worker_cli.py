"""python -m queuey worker on memory://: usage errors (status 2, one line), failures
(status 1, one line), a factory given --url, a graceful stop on SIGTERM and SIGINT."""
import signal
import time

import pytest

import cli

USAGE = [
    ([], {}, "the following arguments are required: MODULE:ATTRIBUTE (see --help)"),
    (["cli_app"], {}, "expected MODULE:ATTRIBUTE, such as app:worker, not 'cli_app'"),
    (["no_such_module_q:worker"], {},
     "cannot import no_such_module_q: no module named no_such_module_q"),
    (["cli_app:absent"], {}, "cli_app:absent: cli_app has no attribute absent"),
    (["cli_app:not_a_worker"], {},
     "cli_app:not_a_worker is a int, not a queuey.Worker or a callable returning one"),
    (["cli_app:returns_nothing"], {},
     "cli_app:returns_nothing() returned a NoneType, not a queuey.Worker"),
    (["cli_app:make_worker"], {}, "cli_app:make_worker takes a URL: give --url or set QUEUEY_URL"),
    (["cli_app:worker", "--url", "memory://", "-l", "warning"], {"QUEUEY_URL": "memory://"},
     "cli_app:worker is a Worker with its client already: --url does not apply"),
    (["cli_app:worker", "--concurrency", "-1"], {},
     "argument --concurrency/-c: must be a whole number >= 0, not '-1' (see --help)"),
    (["cli_app:worker", "--log-level", "LOUD"], {},
     "argument --log-level/-l: must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, "
     "not 'LOUD' (see --help)"),
]


@pytest.mark.parametrize("args, env, message", USAGE)
def test_usage_errors_exit_2_with_one_line(args, env, message):
    done = cli.run(args, **env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"python -m queuey: error: {message}\n"


def test_a_failure_exits_1_with_one_line():
    done = cli.run(["cli_app:make_worker", "--url", "amqp://guest:guest@127.0.0.1:1/"])
    assert done.returncode == 1, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("python -m queuey: failed: CONNECTION: cannot connect to "), last
    assert "connection refused" in last


def test_help_exits_0():
    done = cli.run(["--help"])
    assert done.returncode == 0
    assert "MODULE:ATTRIBUTE" in done.stdout and "--concurrency" in done.stdout


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_factory_given_url_runs_until_a_signal_then_exits_0(signum):
    worker = cli.start(["cli_app:make_worker", "--url", "memory://", "-l", "info"])
    try:
        deadline = time.monotonic() + 30
        line = ""
        while "running cli_app:make_worker" not in line and time.monotonic() < deadline:
            line = worker.stderr.readline()
        worker.send_signal(signum)
        _, stderr = worker.communicate(timeout=30)
    finally:
        worker.kill()
        worker.wait()
    assert worker.returncode == 0, stderr
    assert "stopped gracefully" in stderr
