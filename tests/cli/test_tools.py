"""queuey stats, peek and dead list|show|replay|purge against the broker (issue 12).

Dead letters are put in QUEUE.dead with amqp-publish, as a queuey or Rust worker leaves
them (an envelope body, x-death-reason and x-original-queue headers), so that what the
command reads is checked apart from what queuey writes.
"""
from __future__ import annotations

import collections
import json
import subprocess
import time
import uuid

import pytest

from test_cli import one_line_error

HOUR_MS = 3600 * 1000


def declared(cli, queue: str) -> str:
    """Declares queue (and queue.dead) with queuey's defaults: an enqueue with --after."""
    run = cli("enqueue", queue, "warm_up", "--after", "2s")
    assert run.status == 0, run.stderr
    return queue


def publish_dead_body(amqp, queue: str, body: str, headers: dict[str, str]) -> None:
    """Puts body in queue.dead as it is, persistent, with the given string headers."""
    header_args = [arg for name, value in headers.items() for arg in ("-H", f"{name}: {value}")]
    subprocess.run(["amqp-publish", "-u", amqp.url, "-r", queue + ".dead", "-p",
                    "-C", "application/json", *header_args, "-b", body],
                   check=True, capture_output=True)


def put_dead_letter(amqp, queue: str, job_type: str, reason: str, *, attempt: int = 1,
                    age_ms: int = 1000, payload: object = None) -> str:
    job_id = str(uuid.uuid4())
    envelope = {"job_id": job_id, "job_type": job_type, "queue": queue, "attempt": attempt,
                "enqueued_at_ms": int(time.time() * 1000) - age_ms, "deferrals": 2,
                "priority": 0, "payload": payload if payload is not None else {"n": 1}}
    publish_dead_body(amqp, queue, json.dumps(envelope),
                      {"x-death-reason": reason, "x-original-queue": queue})
    return job_id


def dead_ids(cli, queue: str) -> list[str]:
    run = cli("--json", "dead", "list", queue, "--limit", "0")
    assert run.status == 0, run.stderr
    return [line["job_id"] for line in run.json_lines()]


def test_every_new_command_has_help(cli):
    for command in (["stats"], ["peek"], ["dead"], ["dead", "list"], ["dead", "show"],
                    ["dead", "replay"], ["dead", "purge"]):
        run = cli(*command, "--help")
        assert run.status == 0 and "QUEUE" in run.stdout.upper(), (command, run.stdout)
    assert "lost run" in cli("peek", "--help").stdout


def test_dead_list_shows_each_letter_and_leaves_the_queue_as_it_was(cli, amqp, queue):
    declared(cli, queue)
    first = put_dead_letter(amqp, queue, "send_email", "fatal error: KeyError('to')", attempt=3)
    second = put_dead_letter(amqp, queue, "render", "max attempts (5) exhausted", age_ms=2 * HOUR_MS)
    run = cli("dead", "list", queue)
    assert run.status == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(first + "  send_email  attempt 3  age ")
    assert lines[0].endswith(f"from '{queue}': fatal error: KeyError('to')")
    assert lines[1].startswith(second + "  render  attempt 1  age 2 h")
    assert lines[2] == f"2 dead letter(s) of '{queue}' shown"
    js = cli("--json", "dead", "list", queue).json_lines()
    assert [(l["job_id"], l["attempt"], l["original_queue"], l["reason"]) for l in js] == [
        (first, 3, queue, "fatal error: KeyError('to')"),
        (second, 1, queue, "max attempts (5) exhausted")]
    assert js[1]["age_ms"] >= 2 * HOUR_MS
    assert dead_ids(cli, queue) == [first, second], "listing moved or removed letters"


def test_dead_list_leaves_every_body_and_header_byte_for_byte(cli, amqp, queue):
    declared(cli, queue)
    bodies = ['{"job_id": "%s", "job_type": "a",  "queue": "%s", "attempt": 2, '
              '"enqueued_at_ms": 1, "deferrals": 0, "priority": 0, "payload": {"z": 1, "a": [ ]}}'
              % (uuid.uuid4(), queue),  # spacing and key order a re-encoding would change
              "not json at all \u00e9\t",  # an undecodable letter, kept as it came
              json.dumps({"job_id": str(uuid.uuid4()), "job_type": "b", "queue": queue,
                          "attempt": 1, "enqueued_at_ms": 2, "deferrals": 0, "priority": 0,
                          "payload": "\u00fc"}, ensure_ascii=False)]
    for n, body in enumerate(bodies):
        publish_dead_body(amqp, queue, body, {"x-death-reason": f"reason {n}",
                                               "x-original-queue": queue, "x-extra": f"v{n}"})
    def letters() -> list[tuple[dict, dict]]:
        """Each letter's list line (without its age and redelivered flag) and headers."""
        lines = cli("--json", "dead", "list", queue, "--limit", "0").json_lines()
        return [({k: v for k, v in l.items() if k not in ("age_ms", "redelivered")},
                 cli("--json", "dead", "show", queue, l["job_id"]).json_lines()[0]["headers"]
                 if l["job_id"] else {}) for l in lines]  # an undecodable letter has none

    before = letters()
    for limit in ("1", "2", "0"):  # a list that stops early puts back the rest too
        assert cli("dead", "list", queue, "--limit", limit).status == 0
    assert letters() == before
    assert [(line["reason"], headers.get("x-extra")) for line, headers in before] == [
        ("reason 0", "v0"), ("reason 1", None), ("reason 2", "v2")]
    [line] = cli("--json", "stats", queue).json_lines()
    assert line["dead"] == 3
    got = []
    while (body := subprocess.run(["amqp-get", "-u", amqp.url, "-q", queue + ".dead"],
                                  capture_output=True)).returncode == 0:
        got.append(body.stdout)
    assert got == [b.encode() for b in bodies], "the letters' bodies, in order, unchanged"


def test_dead_list_filters_and_limits(cli, amqp, queue):
    declared(cli, queue)
    ids = [put_dead_letter(amqp, queue, t, r) for t, r in
           [("a", "timeout"), ("b", "fatal error: x"), ("a", "fatal error: y")]]
    assert [l["job_id"] for l in cli("--json", "dead", "list", queue, "--job-type", "a")
            .json_lines()] == [ids[0], ids[2]]
    assert [l["job_id"] for l in cli("--json", "dead", "list", queue, "--reason-contains",
                                     "fatal").json_lines()] == [ids[1], ids[2]]
    limited = cli("dead", "list", queue, "--limit", "1")
    assert limited.stdout.splitlines()[-1].endswith("(the limit; --limit 0 shows all)")


def test_dead_show_prints_the_envelope_payload_and_headers(cli, amqp, queue):
    declared(cli, queue)
    job_id = put_dead_letter(amqp, queue, "send_email", "fatal error: bad address",
                             payload={"to": "a@b.c", "cc": ["x", "y"]})
    run = cli("dead", "show", queue, job_id)
    assert run.status == 0, run.stderr
    assert f"queue {queue}, attempt 1, deferrals 2" in run.stdout
    assert '  "to": "a@b.c",' in run.stdout, run.stdout  # pretty-printed
    assert '"x-death-reason": "fatal error: bad address"' in run.stdout
    [line] = cli("--json", "dead", "show", queue, job_id).json_lines()
    assert line["envelope"]["payload"] == {"to": "a@b.c", "cc": ["x", "y"]}
    assert line["headers"]["x-original-queue"] == queue
    missing = cli("dead", "show", queue, str(uuid.uuid4()))
    one_line_error(missing, 1, "QY_ERR_NOT_FOUND", "no dead letter with job id")


def test_dead_replay_puts_the_selected_jobs_back_as_attempt_one(cli, amqp, queue):
    declared(cli, queue)
    keep = put_dead_letter(amqp, queue, "a", "timeout", attempt=2)
    again = put_dead_letter(amqp, queue, "a", "timeout", attempt=4, payload={"k": "v"})
    run = cli("dead", "replay", queue, "--job-id", again)
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == f"replayed 1 dead letter(s) of '{queue}' as attempt 1"
    assert dead_ids(cli, queue) == [keep]
    job = amqp.get(queue)
    assert (job["job_id"], job["attempt"], job["deferrals"], job["payload"]) == (
        again, 1, 0, {"k": "v"})
    [line] = cli("--json", "dead", "replay", queue, "--all", "--keep-attempt").json_lines()
    assert line == {"queue": queue, "replayed": 1}
    assert amqp.get(queue)["attempt"] == 2, "--keep-attempt keeps the envelope"
    assert dead_ids(cli, queue) == []


def test_replay_and_purge_need_a_selection(cli, queue):
    for command in (["dead", "replay", queue], ["dead", "purge", queue, "--yes"]):
        one_line_error(cli(*command), 2, "--all")
    one_line_error(cli("dead", "purge", queue, "--all", "--job-type", "a", "--yes"), 2, "--all")


def test_dead_purge_removes_what_it_selects_and_asks_first(cli, amqp, queue):
    declared(cli, queue)
    old = put_dead_letter(amqp, queue, "a", "timeout", age_ms=3 * HOUR_MS)
    new = put_dead_letter(amqp, queue, "a", "timeout")
    unconfirmed = cli("dead", "purge", queue, "--all", stdin="y\n")  # stdin is no terminal
    one_line_error(unconfirmed, 2, "--yes")
    run = cli("dead", "purge", queue, "--older-than", "2h", "--yes")
    assert run.status == 0, run.stderr
    assert run.stdout.strip() == f"removed 1 dead letter(s) of '{queue}'"
    assert dead_ids(cli, queue) == [new]
    assert old not in dead_ids(cli, queue)


def test_stats_counts_ready_held_and_dead(cli, amqp, queue):
    # One job held 4 min: a hold that cannot end during the test, however slow the build
    # (a 2 s hold moved into the queue between --watch's samples under ASan).
    assert cli("enqueue", queue, "warm_up", "--after", "4m").status == 0
    for n in range(3):
        assert cli("enqueue", queue, "t", json.dumps({"n": n})).status == 0
    put_dead_letter(amqp, queue, "t", "timeout")
    [line] = cli("--json", "stats", queue).json_lines()
    assert line == {"queue": queue, "ready": 3, "consumers": 0, "held": 1,
                    "holds_counted": "indexed, and up to 5m probed", "dead": 1,
                    "holds": {f"{queue}.deferred.240000": 1}}
    human = cli("stats", queue)
    assert human.stdout.strip() == (f"{queue}: 3 ready, 0 consumer(s), 1 held in 1 hold queue(s) "
                                    "(indexed, and up to 5m probed), 1 dead")
    watch = cli("--json", "stats", queue, "--watch", "0.2", "--count", "2")
    assert watch.status == 0, watch.stderr
    first, second = watch.json_lines()
    assert "ready_change_per_s" not in first
    assert second["ready_change_per_s"] == 0 and second["dead_change_per_s"] == 0


def test_stats_of_a_queue_that_does_not_exist_fails_naming_it(cli, queue):
    one_line_error(cli("stats", queue), 1, "QY_ERR_NOT_FOUND", queue)


def test_peek_shows_the_next_jobs_and_leaves_them(cli, queue):
    declared(cli, queue)
    for n in range(3):
        assert cli("enqueue", queue, "t", json.dumps({"n": n})).status == 0
    run = cli("--json", "peek", queue, "--limit", "2")
    assert run.status == 0, run.stderr
    assert [l["payload"] for l in run.json_lines()] == [{"n": 0}, {"n": 1}]
    assert [l["payload"] for l in cli("--json", "peek", queue).json_lines()] == [
        {"n": 0}, {"n": 1}, {"n": 2}]
    assert cli("--json", "stats", queue).json_lines()[0]["ready"] == 3


def put_dead_letters(amqp, cli, queue: str, count: int) -> list[str]:
    """count dead letters in one amqp-publish (one message a line), into an empty queue.dead;
    returns their job ids.

    amqp-publish does not wait for confirms, so its last messages can still be on their way
    into the queue when it exits: this waits until the queue holds all of them."""
    now = int(time.time() * 1000)
    ids = [str(uuid.uuid4()) for _ in range(count)]
    lines = [json.dumps({"job_id": job_id, "job_type": "bulk", "queue": queue, "attempt": 1,
                         "enqueued_at_ms": now, "deferrals": 0, "priority": 0,
                         "payload": {"n": n}}) + "\n" for n, job_id in enumerate(ids)]
    subprocess.run(["amqp-publish", "-u", amqp.url, "-r", queue + ".dead", "-p", "-l",
                    "-H", "x-death-reason: timeout", "-H", f"x-original-queue: {queue}"],
                   input="".join(lines).encode(), check=True, capture_output=True)
    deadline = time.monotonic() + 30
    while (dead := cli("--json", "stats", queue).json_lines()[0]["dead"]) < count:
        assert time.monotonic() < deadline, f"{dead} of {count} dead letters arrived"
        time.sleep(0.05)
    return ids


def test_a_replay_reaches_a_worker_consuming_the_queue_and_loses_no_job(cli, amqp, queue,
                                                                       counting_worker):
    worker = subprocess.Popen([counting_worker, cli.url, queue, "1000", "120"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout.readline() == "ready\n"  # the queue is declared, the worker on
        ids = put_dead_letters(amqp, cli, queue, 1000)
        started = time.monotonic()
        replay = cli("dead", "replay", queue, "--all")
        replay_s = time.monotonic() - started
        assert replay.status == 0, replay.stderr
        assert replay.stdout.strip() == f"replayed 1000 dead letter(s) of '{queue}' as attempt 1"
        out, _ = worker.communicate(timeout=150)
    finally:
        worker.kill()
    *runs, summary = out.splitlines()
    ran = collections.Counter(line.split()[0] for line in runs)
    lost = set(ids) - set(ran)
    duplicated = sum(n - 1 for n in ran.values())
    print(f"replay of 1000 dead letters beside a worker: {len(ran)} ran, {len(lost)} lost, "
          f"{duplicated} duplicated, replay took {replay_s:.2f} s")
    assert worker.returncode == 0 and summary == f"ran 1000 distinct job(s) in {len(runs)} run(s)"
    assert not lost and set(ran) == set(ids)
    assert duplicated == 0, "a replay without a fault runs each job once"
    assert {line.split()[1] for line in runs} == {"1"}, "replayed as attempt 1"
    [line] = cli("--json", "stats", queue).json_lines()
    assert (line["ready"], line["dead"]) == (0, 0)


def run_with_terminal_stderr(cli, *args: str) -> tuple[int, str, str]:
    """Runs the command with stderr on a pseudo-terminal; returns status, stdout, stderr."""
    import os
    import pty
    main, side = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "QUEUEY_URL"}
    env["QUEUEY_URL"] = cli.url
    done = subprocess.Popen([cli.program, *args], stdout=subprocess.PIPE, stderr=side,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(side)
    err = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the command ended and closed its side
            break
        if not chunk:
            break
        err += chunk
    out = done.stdout.read().decode()
    status = done.wait(timeout=60)
    os.close(main)
    return status, out, err.decode()


def test_a_long_replay_draws_a_progress_bar_on_a_terminal(cli, amqp, queue):
    amqp.declare(queue)  # no job held: the queue holds only what is replayed
    amqp.declare(queue + ".dead")
    put_dead_letters(amqp, cli, queue, 1000)
    status, out, err = run_with_terminal_stderr(cli, "dead", "replay", queue, "--all")
    assert status == 0, err
    assert out.strip() == f"replayed 1000 dead letter(s) of '{queue}' as attempt 1"
    assert "/1000 dead letters examined" in err, err
    assert err.endswith("\r\x1b[K"), "the bar's line is cleared at the end"
    assert cli("--json", "stats", queue).json_lines()[0]["ready"] == 1000
    put_dead_letters(amqp, cli, queue, 1000)
    quiet = cli("dead", "purge", queue, "--all", "--yes")  # stderr is no terminal: no bar
    assert quiet.status == 0 and quiet.stderr == "", quiet.stderr
    assert quiet.stdout.strip() == f"removed 1000 dead letter(s) of '{queue}'"


def test_hostile_bytes_leave_one_valid_json_object_and_one_terminal_line_per_letter(cli, amqp, queue):
    """Issue 41 (a fault campaign): header bytes that are no UTF-8 made `--json dead list`
    print invalid JSON, and a job type with an escape sequence and newlines reached the
    terminal as such (31 letters took 45 lines)."""
    declared(cli, queue)
    job_id = str(uuid.uuid4())
    job_type = "evil\x1b[2J\nsecond line\\"
    envelope = {"job_id": job_id, "job_type": job_type, "queue": queue, "attempt": 1,
                "enqueued_at_ms": int(time.time() * 1000), "deferrals": 0, "priority": 0,
                "payload": {}}
    subprocess.run(["amqp-publish", "-u", amqp.url, "-r", queue + ".dead", "-p",
                    "-H", b"x-death-reason: caf\xe9 \xff", "-H", f"x-original-queue: {queue}",
                    "-b", json.dumps(envelope)], check=True, capture_output=True)
    js = cli("--json", "dead", "list", queue)
    assert js.status == 0, js.stderr
    [letter] = js.json_lines()
    assert (letter["job_id"], letter["job_type"], letter["reason"]) == (
        job_id, job_type, "caf\ufffd \ufffd")
    text = cli("dead", "list", queue)
    assert text.status == 0, text.stderr
    lines = text.stdout.splitlines()
    assert len(lines) == 2, lines  # the letter and the summary
    assert lines[0].startswith(job_id + "  evil\\x1b[2J\\nsecond line\\\\  attempt 1"), lines[0]
    assert lines[0].endswith(f"from '{queue}': caf\ufffd \ufffd"), lines[0]
    assert "\x1b" not in text.stdout


def test_dead_show_prints_the_exception_as_it_was_written(cli, amqp, queue):
    """Issue 41: `dead show` printed the x-exception text only JSON-escaped, a traceback
    as one line of \\n."""
    declared(cli, queue)
    job_id = str(uuid.uuid4())
    envelope = {"job_id": job_id, "job_type": "send_email", "queue": queue, "attempt": 1,
                "enqueued_at_ms": int(time.time() * 1000), "deferrals": 0, "priority": 0,
                "payload": {}}
    exception = ("KeyError\nTraceback (most recent call last):\n"
                 "  File \"app.py\", line 3, in send\nKeyError: 'to'\n")
    publish_dead_body(amqp, queue, json.dumps(envelope),
                      {"x-death-reason": "fatal error: KeyError", "x-original-queue": queue,
                       "x-exception": exception})
    run = cli("dead", "show", queue, job_id)
    assert run.status == 0, run.stderr
    assert run.stdout.endswith(
        "exception:\n  KeyError\n  Traceback (most recent call last):\n"
        "    File \"app.py\", line 3, in send\n  KeyError: 'to'\n"), run.stdout
