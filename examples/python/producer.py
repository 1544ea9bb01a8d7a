#!/usr/bin/env python3
"""Puts COUNT send_email jobs (default 10) on the queue example.emails.

    producer.py [URL [COUNT]]     URL defaults to $QUEUEY_URL, e.g. amqp://guest:guest@localhost/
"""
import os
import sys

import queuey

url = sys.argv[1] if len(sys.argv) > 1 else os.environ["QUEUEY_URL"]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10

with queuey.Client(url) as client, client.producer() as producer:
    client.declare("example.emails")
    for i in range(count):
        job_id = producer.enqueue("example.emails", "send_email",
                                  {"to": f"user{i}@example.com", "subject": f"hello #{i}"})
        print("enqueued", job_id)
