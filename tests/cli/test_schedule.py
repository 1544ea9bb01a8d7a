"""queuey schedule list against schedulers that run (issue 43): three scheduler processes
(`xlang_c schedule`, the C API) in one group elect a leader on the broker; the command shows the
leader, the schedule with its last and next fire, and, once the leader is killed with
SIGKILL, the scheduler that took over."""
from __future__ import annotations

import datetime
import subprocess
import time
import uuid

import pytest


def listing(cli, group: str) -> dict:
    run = cli("schedule", "list", "--group", group, "--json")
    assert run.status == 0, run.stderr
    lines = run.json_lines()
    assert len(lines) == 1, run.stdout
    return lines[0]


def eventually(check, timeout: float) -> dict:
    """The first listing check accepts, polled every 100 ms."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s")
        time.sleep(0.1)


@pytest.fixture
def group() -> str:
    return f"cli-{uuid.uuid4().hex[:12]}"


def test_schedule_list_with_no_scheduler_says_so(cli, group):
    assert listing(cli, group) == {"group": group, "leader": None, "schedulers": 0,
                                   "schedules": []}
    run = cli("schedule", "list", "--group", group)
    assert run.status == 0, run.stderr
    assert run.stdout == "no scheduler has led yet; 0 scheduler(s) in the election\n" \
                         "0 schedule(s)\n"


def test_schedule_list_shows_the_leader_and_the_one_that_takes_over(cli, broker_url, xlang_c,
                                                                      group):
    names = [f"{group}-{i}" for i in range(3)]
    processes = [subprocess.Popen([xlang_c, "schedule", "--url", broker_url, "--group", group,
                                   "--name", f"{group}.ticks", "--queue", f"{group}.q",
                                   "--connection-name", name], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True) for name in names]
    try:
        for process in processes:
            assert process.stdout.readline() == "started\n"

        def fired() -> dict | None:
            found = listing(cli, group)
            ready = (found["leader"] and found["schedulers"] == 3 and found["schedules"]
                     and found["schedules"][0]["last_fire"])
            return found if ready else None

        first = eventually(fired, 15)
        leader = first["leader"]["connection"]
        assert leader in names
        assert first["group"] == group
        [ticks] = first["schedules"]
        assert (ticks["name"], ticks["queue"], ticks["job_type"]) == \
            (f"{group}.ticks", f"{group}.q", "tick")
        assert (ticks["interval_ms"], ticks["missed"], ticks["payload"]) == (1000, "skip", "null")
        last = datetime.datetime.fromisoformat(ticks["last_fire"].replace("Z", "+00:00"))
        following = datetime.datetime.fromisoformat(ticks["next_fire"].replace("Z", "+00:00"))
        assert following > last
        assert processes[names.index(leader)].pid == first["leader"]["pid"]

        human = cli("schedule", "list", "--group", group)
        assert human.status == 0, human.stderr
        lines = human.stdout.splitlines()
        assert lines[0].startswith(f"leader: '{leader}' (host ")
        assert lines[0].endswith("; 3 scheduler(s) in the election")
        assert lines[1].startswith(f"{group}.ticks: every 1000 ms -> {group}.q (tick); last fire ")
        assert lines[2] == "1 schedule(s)"

        processes[names.index(leader)].kill()  # SIGKILL: its connection goes with it

        def taken_over() -> dict | None:
            found = listing(cli, group)
            return found if found["leader"]["connection"] not in (leader,) \
                and found["schedulers"] == 2 else None

        second = eventually(taken_over, 15)
        assert second["leader"]["connection"] in names
        assert second["leader"]["since"] >= first["leader"]["since"]
    finally:
        for process in processes:
            process.kill()
            process.wait()
