#!/usr/bin/env python3
"""Runs the send_email jobs of example.emails until COUNT (default 10) have succeeded, or
until Ctrl-C. The first attempt of every third job fails, as if the mail server were
busy; queuey retries it after a backoff (3 attempts at most).

    worker.py [URL [COUNT]]       URL defaults to $QUEUEY_URL
"""
import itertools
import os
import sys

import queuey

url = sys.argv[1] if len(sys.argv) > 1 else os.environ["QUEUEY_URL"]
wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 10
seen, done = itertools.count(), itertools.count(1)

with queuey.Client(url) as client:
    client.declare("example.emails")
    worker = queuey.Worker(client, "example.emails", concurrency=1,
                           retry=queuey.RetryPolicy.exponential(3, base=0.5))

    @worker.handler("send_email")
    def send_email(job: queuey.Job) -> None:
        if job.attempt == 1 and next(seen) % 3 == 2:
            raise queuey.Retry("smtp: 421 mail server busy")
        print(f"sent {job.job_id} (attempt {job.attempt}): {job.payload['to']}")
        if next(done) == wanted:
            worker.shutdown()  # run() returns once the jobs in hand are settled

    with worker:
        worker.run()  # Ctrl-C or SIGTERM: a graceful shutdown too
