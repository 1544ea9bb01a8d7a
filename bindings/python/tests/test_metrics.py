"""Worker.metrics_text() and queuey.metrics.WorkerCollector on memory://: the counts of
a run in the Prometheus text, readable while the worker runs, and through
prometheus_client's registry; without prometheus_client queuey still imports."""
import os
import subprocess
import sys
import textwrap

import pytest

import queuey
from conftest import HERE
from workers import run_until, run_until_idle

FAST = queuey.QueueConfig("jobs", delay_granularity=0.001)


@pytest.fixture
def client(memory):
    memory.declare(FAST)
    with memory.producer() as producer:
        for _ in range(3):
            producer.enqueue("jobs", "ok", {})
        producer.enqueue("jobs", "bad", {})
    return memory


@pytest.fixture
def worker(client):
    with queuey.Worker(client, "jobs", retry=queuey.RetryPolicy.fixed(2, 0.001)) as worker:
        worker.add_handler("ok", lambda job: None)

        @worker.handler("bad")
        def bad(job):
            if job.attempt == 1:
                raise queuey.Retry("not yet")
            raise queuey.Fatal("never")

        yield worker


def sample(text, series):
    """The value of the sample named series (with its labels), or None."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line[len(series) + 1:])
    return None


def jobs(job_type, outcome):
    return f'queuey_jobs_total{{queue="jobs",job_type="{job_type}",outcome="{outcome}"}}'


def test_metrics_text_counts_the_outcomes(client, worker):
    assert "queuey_jobs_total{" not in worker.metrics_text()  # before the run: no series
    read_while_running = []

    def idle():
        read_while_running.append(worker.metrics_text())
        try:
            client.memory_wait_idle(0.05)
            return True
        except queuey.BrokerError:
            return False

    run_until(worker, idle)
    text = worker.metrics_text()
    assert all("# TYPE queuey_jobs_total counter" in t for t in read_while_running)
    assert sample(text, jobs("ok", "succeeded")) == 3
    assert sample(text, jobs("bad", "retried")) == 1
    assert sample(text, jobs("bad", "dead_lettered")) == 1
    assert sample(text, jobs("ok", "dead_lettered")) == 0
    assert sample(text, 'queuey_job_duration_seconds_count{queue="jobs",job_type="bad"}') == 2
    assert sample(text, 'queuey_job_duration_seconds_bucket{queue="jobs",job_type="ok",'
                        'le="+Inf"}') == 3
    assert sample(text, 'queuey_worker_dead_lettered_total{reason="fatal"}') == 1
    assert text.endswith("\n")


def test_metrics_text_of_a_closed_worker_raises(client):
    worker = queuey.Worker(client, "jobs")
    worker.close()
    with pytest.raises(queuey.ClosedError):
        worker.metrics_text()


def test_collector_registers_with_prometheus_client(client, worker):
    prometheus_client = pytest.importorskip("prometheus_client")
    from queuey.metrics import WorkerCollector

    run_until_idle(client, worker)
    collector = WorkerCollector(worker)
    prometheus_client.REGISTRY.register(collector)
    try:
        registry = prometheus_client.REGISTRY
        labels = {"queue": "jobs", "job_type": "ok", "outcome": "succeeded"}
        assert registry.get_sample_value("queuey_jobs_total", labels) == 3
        assert registry.get_sample_value(
            "queuey_job_duration_seconds_count", {"queue": "jobs", "job_type": "bad"}) == 2
        assert registry.get_sample_value(
            "queuey_job_duration_seconds_bucket",
            {"queue": "jobs", "job_type": "ok", "le": "+Inf"}) == 3
        assert registry.get_sample_value("queuey_worker_jobs_in_flight") == 0
        exposed = prometheus_client.generate_latest(registry).decode()
        assert "# TYPE queuey_job_duration_seconds histogram" in exposed
        assert ('queuey_jobs_total{job_type="bad",outcome="dead_lettered",queue="jobs"} 1.0'
                in exposed)
    finally:
        prometheus_client.REGISTRY.unregister(collector)
    worker.close()
    assert list(collector.collect()) == []


def test_collector_refuses_what_is_not_a_worker():
    pytest.importorskip("prometheus_client")
    from queuey.metrics import WorkerCollector

    with pytest.raises(TypeError):
        WorkerCollector("worker")


def test_without_prometheus_client_only_the_collector_fails():
    """prometheus_client blocked (None in sys.modules): queuey and queuey.metrics import,
    and only WorkerCollector() raises ImportError, naming the package."""
    script = textwrap.dedent("""
        import sys
        sys.modules["prometheus_client"] = None
        sys.modules["prometheus_client.parser"] = None
        import queuey
        import queuey.metrics
        with queuey.Client("memory://") as client:
            client.declare("jobs")
            with queuey.Worker(client, "jobs") as worker:
                assert "queuey_worker_jobs_in_flight 0" in worker.metrics_text()
                try:
                    queuey.metrics.WorkerCollector(worker)
                except ImportError as e:
                    print(e)
                else:
                    raise SystemExit("no ImportError")
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "pip install prometheus-client" in done.stdout
