#!/usr/bin/env python3
"""The cross-implementation CLI (the "xlang" contract) on the Python binding.

    xlang.py enqueue --url URL --queue Q --type T --payload JSON
                     [--after-ms N | --defer-ms N] [--correlation-id C]
    xlang.py work --url URL --queue Q --handled N [--timeout-s S]
    xlang.py schedule --url URL --group G --name N --queue Q --connection-name C
                      [--catch-up K]

Both declare Q with the defaults; work retries with a fixed 1000 ms delay, 3 attempts.
work prints one JSON line per handler invocation and stops after N of them. schedule
runs a scheduler of one schedule N (a "tick" job into Q every second, catch-up K or skip)
in group G, prints "started", and when its stdin ends prints its counts as one JSON line.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout
import queuey  # noqa: E402

RETRY = queuey.RetryPolicy.fixed(3, 1.0)


def enqueue(args: argparse.Namespace) -> None:
    with queuey.Client(args.url) as client, client.producer() as producer:
        client.declare(args.queue)
        common = (args.queue, args.type, args.payload)
        if args.after_ms is not None:
            job_id = producer.enqueue_after(*common, args.after_ms / 1000,
                                            correlation_id=args.correlation_id)
        elif args.defer_ms is not None:
            job_id = producer.defer(*common, args.defer_ms / 1000,
                                    correlation_id=args.correlation_id)
        else:
            job_id = producer.enqueue(*common, correlation_id=args.correlation_id)
    print(job_id, flush=True)


def outcome_of(job: queuey.Job) -> BaseException | None:
    """What the contract's handler of job.job_type does: None for success."""
    kind = job.job_type
    if kind == "retry-once" and job.attempt == 1 or kind == "always-retry":
        return queuey.Retry("xlang retry")
    if kind == "fatal":
        return queuey.Fatal("xlang fatal")
    if kind == "defer-once" and job.deferrals == 0:
        return queuey.Defer(1.0, "xlang defer")
    return None


OUTCOME_NAMES = {queuey.Retry: "retry", queuey.Fatal: "fatal", queuey.Defer: "defer"}


class Work:
    def __init__(self, worker: queuey.Worker, wanted: int) -> None:
        self.worker, self.wanted = worker, wanted
        self.handled = 0
        self.lock = threading.Lock()

    def handle(self, job: queuey.Job) -> None:
        outcome = outcome_of(job)
        head = {"impl": "python", "job_id": job.job_id, "job_type": job.job_type,
                "attempt": job.attempt, "deferrals": job.deferrals, "priority": job.priority}
        # The payload goes out as the JSON text it arrived as, digit for digit.
        outcome_name = json.dumps(OUTCOME_NAMES.get(type(outcome), "ok"))
        line = (json.dumps(head, separators=(",", ":"))[:-1] + ',"payload":' + job.payload_json
                + ',"outcome":' + outcome_name + "}")
        with self.lock:
            print(line, flush=True)
            self.handled += 1
            if self.handled >= self.wanted:
                self.worker.shutdown()
        if outcome is not None:
            raise outcome


def work(args: argparse.Namespace) -> None:
    with queuey.Client(args.url) as client:
        client.declare(args.queue)
        with queuey.Worker(client, args.queue, retry=RETRY) as worker:
            state = Work(worker, args.handled)
            for job_type in ("ok", "retry-once", "always-retry", "fatal", "defer-once"):
                worker.add_handler(job_type, state.handle)
            timer = threading.Timer(args.timeout_s, worker.shutdown)
            timer.start()
            try:
                worker.run()
            finally:
                timer.cancel()
    if state.handled < args.handled:
        raise TimeoutError(f"timed out after {args.timeout_s} s: "
                           f"{state.handled} of {args.handled} invocations handled")


def schedule(args: argparse.Namespace) -> None:
    ticks = queuey.Schedule(args.name, args.queue, "tick", interval=1, catch_up=args.catch_up)
    with queuey.Scheduler(args.url, [ticks], group=args.group,
                          connection_name=args.connection_name) as scheduler:
        print("started", flush=True)
        sys.stdin.read()
        counts = scheduler.counts()
    print(json.dumps({"fires": counts.fires, "skipped": counts.skipped,
                      "caught_up": counts.caught_up, "leads": counts.leads,
                      "failures": counts.failures}), flush=True)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="queuey xlang CLI (Python)")
    commands = parser.add_subparsers(dest="command", required=True)
    e = commands.add_parser("enqueue")
    e.add_argument("--url", required=True)
    e.add_argument("--queue", required=True)
    e.add_argument("--type", required=True)
    e.add_argument("--payload", required=True)
    delay = e.add_mutually_exclusive_group()
    delay.add_argument("--after-ms", type=int)
    delay.add_argument("--defer-ms", type=int)
    e.add_argument("--correlation-id")
    w = commands.add_parser("work")
    w.add_argument("--url", required=True)
    w.add_argument("--queue", required=True)
    w.add_argument("--handled", type=int, required=True)
    w.add_argument("--timeout-s", type=float, default=60.0)
    s = commands.add_parser("schedule")
    for name in ("--url", "--group", "--name", "--queue", "--connection-name"):
        s.add_argument(name, required=True)
    s.add_argument("--catch-up", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse(argv)
    try:
        {"enqueue": enqueue, "work": work, "schedule": schedule}[args.command](args)
    except Exception as e:  # the contract: one line on stderr naming it, exit 1
        print(f"xlang.py {args.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
