"""A worker's metrics for prometheus_client, an optional dependency
(pip install prometheus-client; docs/metrics.md lists the metrics).

    from prometheus_client import REGISTRY, start_http_server
    from queuey.metrics import WorkerCollector

    REGISTRY.register(WorkerCollector(worker))
    start_http_server(9100)

Without prometheus_client, this module still imports; only WorkerCollector() raises
ImportError. Worker.metrics_text() needs nothing: it is the text a scrape returns.
"""
from __future__ import annotations

from typing import Any, Iterator

from .worker import Worker

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:  # optional: only the collector needs it
    text_string_to_metric_families = None


class WorkerCollector:
    """A prometheus_client collector of a worker's metrics: each collect() reads
    Worker.metrics_text() and yields its metric families. A closed worker yields none.
    A registry takes the collectors of two workers only if their series differ (other
    queues or job types): give each worker a registry of its own otherwise."""

    def __init__(self, worker: Worker) -> None:
        if text_string_to_metric_families is None:
            raise ImportError("queuey.metrics.WorkerCollector needs the prometheus_client "
                              "package: pip install prometheus-client")
        if not isinstance(worker, Worker):
            raise TypeError(f"worker must be a Worker, not {type(worker).__name__}")
        self._worker = worker

    def collect(self) -> Iterator[Any]:
        if self._worker.closed:
            return
        yield from text_string_to_metric_families(self._worker.metrics_text())
