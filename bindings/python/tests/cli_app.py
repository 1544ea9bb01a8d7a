"""A worker app for the worker command's tests (python -m queuey worker cli_app:...).

$QUEUEY_URL: the broker (memory:// will do); $CLI_APP_QUEUE: the queue (default
cli_app); $CLI_APP_RECORD: the file each "record" job appends a line to: its payload's
n and how many jobs ran at that moment, itself included.
"""
import logging
import os
import threading
import time

import queuey

QUEUE = os.environ.get("CLI_APP_QUEUE", "cli_app")
_lock = threading.Lock()
_running = 0


def _record(job: queuey.Job) -> None:
    global _running
    with _lock:
        _running += 1
        at_once = _running
    time.sleep(job.payload.get("sleep", 0))
    with _lock:
        _running -= 1
        with open(os.environ["CLI_APP_RECORD"], "a") as record:
            record.write(f"{job.payload['n']} {at_once}\n")


def make_worker(url: str) -> queuey.Worker:
    logging.getLogger("cli_app").info("worker on %s", url)
    client = queuey.Client(url, connection_name="queuey-cli-app")
    client.declare(queuey.QueueConfig(QUEUE, durable=False))
    made = queuey.Worker(client, QUEUE)
    made.add_handler("record", _record)
    return made


worker = make_worker(os.environ["QUEUEY_URL"]) if "QUEUEY_URL" in os.environ else None
not_a_worker = 42


def returns_nothing() -> None:
    return None
