"""The queuey command (cli/): what it puts on the broker, what it prints, and how it
fails (issue 12). Exit status: 0 done, 1 failed, 2 not a valid command line."""
from __future__ import annotations

import time

import pytest


def one_line_error(run, status: int, *fragments: str) -> None:
    assert run.status == status, (run.status, run.stdout, run.stderr)
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("queuey: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_every_command_has_help(cli):
    top = cli("--help")
    assert top.status == 0 and "enqueue" in top.stdout and "--url" in top.stdout
    enqueue = cli("enqueue", "--help")
    assert enqueue.status == 0
    for option in ("--after", "--correlation-id", "--queue-type", "JOB_TYPE"):
        assert option.lower() in enqueue.stdout.lower(), option


def test_version(cli):
    run = cli("--version")
    assert run.status == 0
    assert run.stdout.strip().count(".") == 2, run.stdout


def test_enqueue_puts_one_job_on_the_queue(cli, amqp, queue):
    amqp.declare(queue)
    run = cli("enqueue", queue, "send_email", '{"to": "a@b.c"}', "--correlation-id", "c-17")
    assert run.status == 0, run.stderr
    assert run.stdout.startswith("enqueued job "), run.stdout
    assert f"(send_email) on queue '{queue}'" in run.stdout
    job = amqp.get(queue)
    assert job is not None, "nothing in the queue"
    assert (job["job_type"], job["queue"], job["attempt"], job["deferrals"]) == (
        "send_email", queue, 1, 0)
    assert job["payload"] == {"to": "a@b.c"}
    assert job["correlation_id"] == "c-17"
    assert job["job_id"] in run.stdout
    assert amqp.get(queue) is None, "more than one job"


def test_json_output_is_one_object_a_line(cli, amqp, queue):
    amqp.declare(queue)
    run = cli("--json", "enqueue", queue, "t", "[1, 2]")
    assert run.status == 0, run.stderr
    [line] = run.json_lines()
    job = amqp.get(queue)
    assert line == {"queue": queue, "job_id": job["job_id"], "job_type": "t"}
    assert job["payload"] == [1, 2]
    # --json also after the command
    again = cli("enqueue", queue, "t", "--json")
    assert again.status == 0 and again.json_lines()[0]["queue"] == queue


def test_the_payload_defaults_to_an_empty_object_and_comes_from_stdin_with_a_dash(cli, amqp, queue):
    amqp.declare(queue)
    assert cli("enqueue", queue, "t").status == 0
    assert amqp.get(queue)["payload"] == {}
    run = cli("enqueue", queue, "t", "-", stdin='{"from": "stdin"}\n')
    assert run.status == 0, run.stderr
    assert amqp.get(queue)["payload"] == {"from": "stdin"}


def test_enqueue_after_declares_the_queue_and_holds_the_job(cli, amqp, queue):
    run = cli("--json", "enqueue", queue, "t", "--after", "1s")
    assert run.status == 0, run.stderr
    [line] = run.json_lines()
    assert line["after_ms"] == 1000
    assert amqp.get(queue) is None, "the job did not wait"
    deadline = time.monotonic() + 15
    job = None
    while job is None and time.monotonic() < deadline:
        time.sleep(0.25)
        job = amqp.get(queue)
    assert job is not None, "the held job never reached the queue"
    assert job["job_id"] == line["job_id"]
    human = cli("enqueue", queue, "t", "--after", "1m30s")
    assert human.status == 0 and human.stdout.rstrip().endswith("to run in 1 min 30 s"), human.stdout


def test_an_unknown_queue_fails_and_creates_nothing(cli, amqp, queue):
    one_line_error(cli("enqueue", queue, "t"), 1, "QY_ERR_UNROUTABLE", f"no queue '{queue}'")
    assert amqp.get(queue) is None


def test_a_payload_that_is_not_json_fails_naming_it(cli, amqp, queue):
    amqp.declare(queue)
    one_line_error(cli("enqueue", queue, "t", "{not json"), 1, "QY_ERR_BAD_JSON", "payload")
    assert amqp.get(queue) is None


@pytest.mark.parametrize("duration", ["soon", "5", "5x", "s", "1h30", "99999999999999999999d", ""])
def test_a_bad_duration_is_a_usage_error(cli, queue, duration):
    one_line_error(cli("enqueue", queue, "t", "--after", duration), 2, "bad duration")


def test_a_bad_queue_type_is_a_usage_error(cli, queue):
    run = cli("enqueue", queue, "t", "--after", "1s", "--queue-type", "mirrored")
    assert run.status == 2 and "queue-type" in run.stderr, run.stderr


def test_missing_arguments_and_unknown_commands_are_usage_errors(cli):
    assert cli().status == 2
    assert cli("enqueue").status == 2
    assert cli("enqueue", "only-a-queue").status == 2
    assert cli("frobnicate").status == 2
    assert cli("enqueue", "q", "t", "--no-such-flag").status == 2


def test_no_broker_given_is_a_usage_error(cli, queue):
    one_line_error(cli("enqueue", queue, "t", url=None), 2, "QUEUEY_URL", "--url")


def test_a_broker_that_is_not_there_fails_without_showing_the_password(cli, queue):
    run = cli("--url", "amqp://guest:s3cret-pw@127.0.0.1:1/", "enqueue", queue, "t")
    one_line_error(run, 1, "QY_ERR_CONNECTION", "127.0.0.1:1", "connection refused")
    assert "s3cret-pw" not in run.stderr
