"""The processes of the chaos suite and the figures it counts: a private broker
(scripts/broker), Toxiproxy, chaos_agent producers and workers, the Rust worker of
tests/interop/rust, broker_probe.

Everything listens on and connects to 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SOURCE_ROOT = Path(os.environ.get("QUEUEY_SOURCE_ROOT", Path(__file__).resolve().parents[2]))
AGENT = os.environ.get("QUEUEY_CHAOS_AGENT", "")
PROBE = os.environ.get("QUEUEY_BROKER_PROBE", "")

# The reason of a job whose lost-run budget (max_lost_runs, default 3) is spent.
LOST_BUDGET_REASON = "lost 3 times: the worker was lost while running the job"
CUT_BUDGET_REASON = ("lost 3 times: the broker's consumer timeout closed the channel while the job ran (a job "
                     "longer than the queue's consumer timeout; docs/worker.md, long jobs)")
# How far past its timeout a call may return and still count as bounded.
CALL_SLACK_MS = 2000
# How many of an agent's log lines are passed on to the test's stderr (a restarted
# broker makes a worker log one line per recovered job).
LOG_LINES_SHOWN = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_script(script: str, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
    """Runs scripts/SCRIPT (broker, cluster) with args, and env added to the environment;
    its stdout. With check, a failure raises with the script's stderr."""
    done = subprocess.run([str(SOURCE_ROOT / "scripts" / script), *args], capture_output=True, text=True,
                          timeout=240, env={**os.environ, **(env or {})})
    if check and done.returncode != 0:
        raise RuntimeError(f"scripts/{script} {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def require_built_programs(suite: str) -> None:
    """Fails the session unless meson named the built chaos_agent and broker_probe."""
    if not (AGENT and PROBE):
        pytest.fail("QUEUEY_CHAOS_AGENT and QUEUEY_BROKER_PROBE must name the built programs "
                    f"(run the suite with: meson test -C build --suite {suite})")


def parse_env(text: str) -> dict[str, str]:
    env = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        env[key] = value.strip("'")
    return env


class Broker:
    """The suite's own RabbitMQ node in DIR, driven through scripts/broker."""

    def __init__(self, directory: str, settings: dict[str, str] | None = None):
        """settings: scripts/broker's variables for start (QUEUEY_BROKER_CONF, ...)."""
        self.dir = directory
        self.settings = settings or {}
        self.env: dict[str, str] = {}

    def _script(self, *args: str, check: bool = True) -> str:
        return run_script("broker", *args, check=check, env=self.settings)

    def start(self) -> None:
        self.env = parse_env(self._script("start", self.dir))

    def restart(self) -> None:
        self.env = parse_env(self._script("restart", self.dir))

    def kill(self) -> None:
        self._script("kill", self.dir)

    def stop(self) -> None:
        self._script("stop", self.dir, check=False)

    def ctl(self, *args: str) -> str:
        return self._script("ctl", self.dir, "-q", *args)

    def set_memory_alarm(self, raised: bool) -> None:
        """Raises or clears the node's memory alarm (as tests/integration/broker_ctl.cpp
        does): the broker blocks every connection that publishes until it is cleared."""
        self.ctl("eval", "rabbit_alarm:set_alarm({{resource_limit, memory, node()}, []})." if raised
                 else "rabbit_alarm:clear_alarm({resource_limit, memory, node()}).")

    @property
    def url(self) -> str:
        return self.env["QUEUEY_URL"]

    @property
    def port(self) -> int:
        return int(self.env["QUEUEY_BROKER_PORT"])

    def close_connections_named(self, name: str) -> int:
        """rabbitmqctl close_connection for every connection whose client calls itself
        name (a client's two connections are "NAME (publish)" and "NAME (consume)");
        returns how many it closed."""
        closed = 0
        for line in self.ctl("list_connections", "--no-table-headers", "pid", "client_properties").splitlines():
            if f'"{name}"' in line or f'"{name} (' in line:
                self.ctl("close_connection", line.split()[0], "chaos: closed on purpose")
                closed += 1
        return closed


def toxiproxy_server_path() -> str:
    """Installs Toxiproxy when missing (scripts/lib/deps.sh); returns the server's path."""
    done = subprocess.run(
        ["bash", "-c", f'source "{SOURCE_ROOT}/scripts/lib/deps.sh" && queuey_toxiproxy_server'],
        capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"cannot install Toxiproxy: {done.stderr.strip()}")
    return done.stdout.strip().splitlines()[-1]


class Toxiproxy:
    """A Toxiproxy server on 127.0.0.1, driven through its HTTP API."""

    def __init__(self):
        self.api_port = free_port()
        self.process = subprocess.Popen(
            [toxiproxy_server_path(), "-host", "127.0.0.1", "-port", str(self.api_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                self._call("GET", "/version")
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.close()
                    raise RuntimeError("Toxiproxy did not start")
                time.sleep(0.1)

    def _call(self, method: str, path: str, body: dict | None = None):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.api_port}{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()

    def proxy(self, name: str, upstream_port: int) -> int:
        """A proxy from a new 127.0.0.1 port to 127.0.0.1:upstream_port; returns its port."""
        port = free_port()
        self._call("POST", "/proxies", {"name": name, "listen": f"127.0.0.1:{port}",
                                        "upstream": f"127.0.0.1:{upstream_port}", "enabled": True})
        return port

    def amqp_url(self, name: str, broker_port: int) -> str:
        """A proxy to the broker; returns the AMQP URL that connects through it."""
        return f"amqp://guest:guest@127.0.0.1:{self.proxy(name, broker_port)}/%2f"

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Disabling a proxy closes every connection through it (both sides see a reset)."""
        self._call("POST", f"/proxies/{name}", {"enabled": enabled})

    def add_toxic(self, proxy: str, toxic: str, kind: str, stream: str, **attributes: int) -> None:
        self._call("POST", f"/proxies/{proxy}/toxics",
                   {"name": toxic, "type": kind, "stream": stream, "toxicity": 1.0, "attributes": attributes})

    def remove_toxic(self, proxy: str, toxic: str) -> None:
        self._call("DELETE", f"/proxies/{proxy}/toxics/{toxic}")

    def delete(self, name: str) -> None:
        self._call("DELETE", f"/proxies/{name}")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Agent:
    """One chaos_agent process; its stdout is read line by line on a thread, its stderr
    (queuey's log lines) kept, and the first of them passed on to ours."""

    def __init__(self, *args: str, commands: bool = False, program: str = "", env: dict[str, str] | None = None):
        """With commands, the agent reads commands from stdin (see send()); program runs
        another program than chaos_agent; env replaces the environment."""
        self.process = subprocess.Popen([program or AGENT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, stdin=subprocess.PIPE if commands else None, env=env)
        self.lines: list[str] = []
        self.line_times: list[float] = []  # time.monotonic() when each of lines came
        self.log: list[tuple[float, str]] = []  # (time.monotonic(), line)
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._log_reader = threading.Thread(target=self._read_log, daemon=True)
        self._log_reader.start()

    def _read_log(self) -> None:
        for line in self.process.stderr:
            self.log.append((time.monotonic(), line.rstrip("\n")))
            if len(self.log) <= LOG_LINES_SHOWN:
                sys.stderr.write(line)
        if len(self.log) > LOG_LINES_SHOWN:
            sys.stderr.write(f"... and {len(self.log) - LOG_LINES_SHOWN} more log lines\n")

    def _read(self) -> None:
        for line in self.process.stdout:
            with self._changed:
                self.line_times.append(time.monotonic())
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_until(self, condition, timeout: float) -> bool:
        """Waits until condition(lines) holds or the process has ended and said all."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition(self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or (not self._reader.is_alive()):
                    return condition(self.lines)
                self._changed.wait(min(left, 0.2))
        return True

    def send(self, command: str) -> None:
        """Writes one command line to the agent's stdin (an agent started with commands)."""
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def exited(self) -> bool:
        """Whether the process has ended. Its output ends a moment before it can be
        reaped, so an ended output waits for the exit instead of reading it as alive."""
        if self._reader.is_alive():
            return False
        self.finish(10)
        return True

    def finish(self, timeout: float) -> int:
        status = self.process.wait(timeout)
        self._reader.join(timeout)
        self._log_reader.join(timeout)
        return status

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM (a graceful shutdown); waits for the process to end."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.finish(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.finish(10)

    def first_log_after(self, since: float, text: str) -> float | None:
        """When the first log line at or after since that contains text came, or None."""
        return next((at for at, line in list(self.log) if at >= since and text in line), None)

    def words(self, first: str) -> list[list[str]]:
        return [line.split() for line in list(self.lines) if line.split(" ", 1)[0] == first]

    def totals(self, first: str) -> list[dict[str, str]]:
        """The name=value words of each line that begins with first ("produced", "counters")."""
        return [dict(word.split("=", 1) for word in words[1:]) for words in self.words(first)]

    def times_between(self, first: str, start: float, end: float) -> list[float]:
        """When the lines that begin with the word first and came from start to end came."""
        return [at for at, line in zip(list(self.line_times), list(self.lines))
                if start <= at <= end and line.split(" ", 1)[0] == first]

    def stop_producing(self) -> None:
        """SIGUSR1: the producer of mode both stops after its current call."""
        self.process.send_signal(signal.SIGUSR1)


class Publisher(Agent):
    """chaos_agent publish: enqueues when told, one call after another, so that a
    scenario can time a fault against single calls."""

    def __init__(self, url: str, queue: str):
        super().__init__("publish", url, queue, commands=True)
        if not self.wait_until(lambda lines: lines and lines[0].startswith("ready "), 60):
            self.kill()
            raise RuntimeError("chaos_agent publish did not connect")
        self.timeout_ms = int(self.lines[0].split("=")[1])
        self.commands = 0

    def start(self, count: int, payload_bytes: int) -> None:
        """Starts count enqueues of payload_bytes each; done() tells when they are over."""
        self.commands += 1
        self.send(f"enqueue {count} {payload_bytes}")

    def done(self, timeout: float) -> bool:
        """Waits until every command started so far is over."""
        return self.wait_until(lambda lines: lines.count("done") >= self.commands, timeout)

    def enqueue(self, count: int, payload_bytes: int, timeout: float = 120) -> list[list[str]]:
        """count enqueues of payload_bytes each; returns their result lines, split."""
        before = len(self.words("enqueued") + self.words("failed"))
        self.start(count, payload_bytes)
        if not self.done(timeout):
            raise RuntimeError(f"chaos_agent publish did not finish {count} enqueues in {timeout} s")
        calls = [line.split() for line in list(self.lines) if line.split(" ", 1)[0] in ("enqueued", "failed")]
        return calls[before:]

    def enqueue_until_ok(self, timeout: float) -> float:
        """Enqueues small jobs one at a time until one succeeds; returns when
        (time.monotonic()), inf when none did within timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.enqueue(1, 0)[0][0] == "enqueued":
                return time.monotonic()
        return float("inf")


class RustWorker(Agent):
    """`xlang-rust work` (tests/interop/rust, the queuey-rabbitmq crate's own Worker): it
    handles `handled` invocations and then shuts down from its last handler, which closes
    its channel before the jobs taken from it are settled (docs/interop.md, difference
    10). Its JSON lines read as a chaos_agent worker's: "started <job_id> attempt <n>
    deferrals <n>" for every invocation, "succeeded <job_id>" for an "ok" outcome."""

    def __init__(self, program: str, url: str, queue: str, handled: int, timeout_s: int):
        super().__init__("work", "--url", url, "--queue", queue, "--handled", str(handled),
                         "--timeout-s", str(timeout_s), "--shutdown-in-handler", "1", program=program)

    def words(self, first: str) -> list[list[str]]:
        runs = [json.loads(line) for line in list(self.lines) if line.startswith("{")]
        if first == "started":
            return [[first, run["job_id"], "attempt", str(run["attempt"]), "deferrals", str(run["deferrals"])]
                    for run in runs]
        return [[first, run["job_id"]] for run in runs if first == "succeeded" and run["outcome"] == "ok"]


@dataclass
class Figures:
    """What one scenario counts (docs/reliability.md)."""

    scenario: str
    enqueued: int = 0          # enqueue calls that returned success
    enqueue_failed: int = 0    # enqueue calls that returned an error (may or may not be in)
    reached: int = 0           # enqueued jobs that reached a handler or q.dead
    lost: int = 0              # enqueued jobs that neither succeeded nor reached q.dead
    wrongly_dead: int = 0      # dead letters with a reason the scenario did not cause
    duplicates: int = 0        # successful runs beyond one per job
    reconnects: int = 0        # reconnects the workers logged
    max_call_ms: int = 0       # the slowest enqueue call
    call_timeout_ms: int = 0   # the timeout every call is held to
    seconds: float = 0.0       # the scenario's wall time
    measured: str = ""         # what else the scenario measured (detection times, ...)
    notes: list[str] = field(default_factory=list)  # what went wrong

    def calls_bounded(self) -> bool:
        return self.max_call_ms <= self.call_timeout_ms + CALL_SLACK_MS


class Scenario:
    """The jobs of one scenario on a queue of its own: who enqueued, ran and dead-lettered what."""

    def __init__(self, name: str, url: str, queue_type: str = "classic"):
        """url may list several nodes, comma-separated; queue_type "quorum" has the agents
        declare a quorum queue."""
        self.name = name
        self.queue = f"chaos.{name}.{os.getpid()}.{time.monotonic_ns() % 1_000_000}"
        self.url = url
        self.env = None if queue_type == "classic" else {**os.environ, "QUEUEY_CHAOS_QUEUE_TYPE": queue_type}
        self.enqueued: set[str] = set()
        self.workers: list[Agent] = []
        self.figures = Figures(name)
        self.started_at = time.monotonic()

    def start_producing(self, count: int, payload: dict, threads: int = 1, url: str | None = None,
                        job_type: str = "chaos.job") -> Agent:
        """A chaos_agent produce under way; count_calls() takes its enqueues once it ended."""
        return Agent("produce", url or self.url, self.queue, str(count), str(threads), compact(payload), job_type,
                     env=self.env)

    def produce(self, count: int, payload: dict, threads: int = 1, url: str | None = None,
                job_type: str = "chaos.job") -> set[str]:
        agent = self.start_producing(count, payload, threads, url, job_type)
        status = agent.finish(300)
        if status != 0:
            raise RuntimeError(f"chaos_agent produce exited with {status}")
        totals = dict(word.split("=") for word in agent.words("produced")[0][1:])
        return self.count_calls(agent, int(totals["timeout_ms"]))

    def count_calls(self, agent: Agent, timeout_ms: int) -> set[str]:
        """Takes a producing agent's enqueue lines into the figures; returns the ids it
        enqueued."""
        ids = {words[1] for words in agent.words("enqueued")}
        self.enqueued |= ids
        self.figures.enqueue_failed += len(agent.words("failed"))
        for words in agent.words("enqueued") + agent.words("failed"):
            self.figures.max_call_ms = max(self.figures.max_call_ms, int(words[2]))
        self.figures.call_timeout_ms = max(self.figures.call_timeout_ms, timeout_ms)
        return ids

    def publisher(self, url: str) -> Publisher:
        """A chaos_agent publish process on url for this scenario's queue."""
        return Publisher(url, self.queue)

    def worker(self, concurrency: int = 0, max_attempts: int = 1, url: str | None = None) -> Agent:
        agent = Agent("work", url or self.url, self.queue, str(concurrency), str(max_attempts), env=self.env)
        self.workers.append(agent)
        return agent

    def producing_worker(self, payloads: list[dict], backlog: int, concurrency: int = 0,
                         max_attempts: int = 1) -> Agent:
        """A chaos_agent both: a worker and, on its client, a producer that enqueues the
        payloads in turn, one job at a time, keeping about backlog jobs waiting, until
        Agent.stop_producing(); count_calls() takes its enqueues once it has stopped."""
        agent = Agent("both", self.url, self.queue, str(concurrency), str(max_attempts), str(backlog),
                      *(compact(payload) for payload in payloads), env=self.env)
        self.workers.append(agent)
        return agent

    def rust_worker(self, program: str, handled: int, timeout_s: int = 30) -> RustWorker:
        """The Rust worker (program: xlang-rust) on this scenario's queue; see RustWorker."""
        agent = RustWorker(program, self.url, self.queue, handled, timeout_s)
        self.workers.append(agent)
        return agent

    def counter(self, name: str) -> int:
        """A worker counter (agent_work.c's "counters" line), added up over the workers."""
        return sum(int(totals.get(name, 0)) for agent in self.workers for totals in agent.totals("counters"))

    def lines(self, first: str) -> list[list[str]]:
        return [words for agent in self.workers for words in agent.words(first)]

    def succeeded(self) -> list[str]:
        return [words[1] for words in self.lines("succeeded")]

    def hook_dead(self) -> set[str]:
        return {words[1] for words in self.lines("dead")}

    def settled(self) -> set[str]:
        return set(self.succeeded()) | self.hook_dead()

    def wait_settled(self, timeout: float, ids: set[str] | None = None) -> bool:
        """Waits until every job of ids (default: all enqueued) succeeded or was
        dead-lettered, by any of the workers."""
        wanted = self.enqueued if ids is None else ids
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if wanted <= self.settled():
                return True
            time.sleep(0.1)
        return wanted <= self.settled()

    def dead_letters(self) -> dict[str, str]:
        """Takes every message off q.dead: job id -> x-death-reason."""
        done = subprocess.run([PROBE, "dead", self.url.split(",")[0], self.queue + ".dead"],
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"broker_probe dead failed: {done.stderr.strip()}")
        letters = {}
        for line in done.stdout.splitlines():
            if line.startswith("dead "):
                _, job_id, reason = line.split(" ", 2)
                letters[job_id] = reason
        return letters

    def finish(self, expected_dead: dict[str, str] | None = None) -> Figures:
        """Stops the workers gracefully, reads q.dead and fills in the figures. A dead
        letter is expected only for a job and with the exact reason in expected_dead."""
        for agent in self.workers:
            if agent.process.poll() is None:
                agent.terminate()
        letters = self.dead_letters()
        expected_dead = expected_dead or {}
        started = {words[1] for words in self.lines("started")}
        succeeded = self.succeeded()
        f = self.figures
        f.enqueued = len(self.enqueued)
        f.reached = len(self.enqueued & (started | set(letters)))
        f.lost = len(self.enqueued - set(succeeded) - set(letters))
        wrong = {job: reason for job, reason in letters.items() if expected_dead.get(job) != reason}
        f.wrongly_dead = len(wrong)
        if wrong:
            reasons = sorted(set(wrong.values()))
            f.notes.append(f"wrong dead-letter reasons: {reasons[:2]}")
        missing = set(expected_dead) - set(letters)
        if missing:
            f.notes.append(f"{len(missing)} expected dead letters missing")
        f.duplicates = len(succeeded) - len(set(succeeded))
        f.reconnects = sum("reconnected to the broker" in line for agent in self.workers for _, line in agent.log)
        f.seconds = time.monotonic() - self.started_at
        return f


def write_figures(terminalreporter, title: str, figures: list[Figures]) -> None:
    """The table of figures that ends a suite's run (pytest_terminal_summary)."""
    if not figures:
        return
    write = terminalreporter.write_line
    terminalreporter.section(title)
    write(f"{'scenario':<28} {'enqueued':>8} {'failed':>6} {'reached':>7} {'lost':>4} "
          f"{'wrong dead':>10} {'dups':>4} {'reconn':>6} {'max call ms':>11} {'timeout ms':>10} {'s':>5}")
    for f in figures:
        write(f"{f.scenario:<28} {f.enqueued:>8} {f.enqueue_failed:>6} {f.reached:>7} {f.lost:>4} "
              f"{f.wrongly_dead:>10} {f.duplicates:>4} {f.reconnects:>6} {f.max_call_ms:>11} {f.call_timeout_ms:>10} "
              f"{f.seconds:>5.0f}" + "".join(f"  {text}" for text in [f.measured, "; ".join(f.notes)] if text))


def compact(payload: dict) -> str:
    """A payload as the agents take it: compact JSON (agent_work.c looks for "key":value)."""
    return json.dumps(payload, separators=(",", ":"))


def wait_for_log(agent: Agent, since: float, text: str, timeout: float) -> float:
    """Seconds from since to the agent's first log line with text; inf after timeout."""
    deadline = time.monotonic() + timeout
    while (at := agent.first_log_after(since, text)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return float("inf") if at is None else at - since


def peek(url: str, queue: str) -> str:
    """basic.get + reject(requeue) of the message at the head of queue, as the management
    UI's "Get messages" does; returns broker_probe's line."""
    done = subprocess.run([PROBE, "peek", url, queue], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"broker_probe peek failed ({done.returncode}): {done.stdout}{done.stderr}")
    return done.stdout.strip()
