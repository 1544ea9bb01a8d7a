"""The steps the broker tests are made of: run one implementation's subcommand of the
xlang contract, or read what is on the broker with `xlang_c get` / `dead`."""

from __future__ import annotations

import json

PAYLOAD = {"to": "a@b.c", "n": 7, "nested": {"list": [1, "two", None, True]}}
MAX_PRIORITY = 10  # the queue default on every side


def enqueue(producer, url, queue, job_type, *extra, payload=PAYLOAD):
    """Enqueues payload (a value, or JSON text passed verbatim); returns the job id."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    out = producer.run("enqueue", "--url", url, "--queue", queue, "--type", job_type,
                       "--payload", text, *extra).stdout.decode()
    job_id = out.strip()
    assert len(job_id) == 36 and job_id.count("-") == 4, f"not a job id: {out!r}"
    return job_id


def work(worker, url, queue, handled, *extra, timeout_s=30):
    return worker.json_lines("work", "--url", url, "--queue", queue, "--handled", str(handled),
                             "--timeout-s", str(timeout_s), *extra, timeout=timeout_s + 30)


def dead_letters(c_impl, url, queue, count):
    return c_impl.json_lines("dead", "--url", url, "--queue", queue, "--count", str(count),
                             "--timeout-s", "10")


def assert_drained(c_impl, url, queue):
    """Nothing is left in q: every job the worker ran was settled (none handed back)."""
    left = c_impl.run("get", "--url", url, "--queue", queue, "--count", "1", "--timeout-s", "0",
                      check=False)
    assert left.returncode == 1 and left.stdout == b"", left.stdout


def take(c_impl, command, url, queue):
    [message] = c_impl.json_lines(command, "--url", url, "--queue", queue, "--count", "1",
                                  "--timeout-s", "10")
    return message
