"""Retry policies and queue configurations: plain values, turned into C objects only for
the call that takes them (the library copies them)."""
from __future__ import annotations

import contextlib
import dataclasses
from typing import Any, Iterator

from . import _convert
from ._ffi import call, ffi, lib


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """What happens after a retryable failure: max_attempts attempts in all (the first
    included), with a fixed delay or an exponential backoff between them (seconds)."""

    max_attempts: int = 1
    delay: _convert.Duration = 0
    factor: float | None = None
    max_delay: _convert.Duration | None = None
    jitter: bool = False

    @classmethod
    def fixed(cls, max_attempts: int, delay: _convert.Duration) -> "RetryPolicy":
        return cls(max_attempts, delay)

    @classmethod
    def exponential(cls, max_attempts: int, base: _convert.Duration, factor: float = 2.0,
                    max_delay: _convert.Duration = 3600, jitter: bool = True) -> "RetryPolicy":
        """min(max_delay, base * factor**(n-1)) after failed attempt n, fully jittered."""
        return cls(max_attempts, base, factor, max_delay, jitter)

    @contextlib.contextmanager
    def _c(self) -> Iterator[Any]:
        out = ffi.new("qy_retry_policy **")
        call(lib.qy_retry_policy_new, _convert.unsigned(self.max_attempts, "max_attempts", 32, 1),
             out)
        policy = ffi.gc(out[0], lib.qy_retry_policy_free)
        try:
            delay = _convert.milliseconds(self.delay, "retry delay")
            if self.factor is None:
                call(lib.qy_retry_policy_set_fixed, policy, delay)
            else:
                if not isinstance(self.factor, (int, float)) or isinstance(self.factor, bool):
                    raise TypeError(f"factor must be a float, not {type(self.factor).__name__}")
                max_ms = _convert.milliseconds(
                    self.max_delay if self.max_delay is not None else 0, "max_delay")
                call(lib.qy_retry_policy_set_exponential, policy, delay, float(self.factor),
                     max_ms, 1 if self.jitter else 0)
            yield policy
        finally:
            ffi.release(policy)


def with_policy(policy: RetryPolicy | None) -> Any:
    """A context giving the C policy of `policy`, or NULL for None."""
    if policy is None:
        return contextlib.nullcontext(ffi.NULL)
    if not isinstance(policy, RetryPolicy):
        raise TypeError(f"retry must be a RetryPolicy, not {type(policy).__name__}")
    return policy._c()


_QUEUE_TYPES = {"classic": 0, "quorum": 1}  # qy_queue_type


def _queue_type(name: object) -> int:
    if not isinstance(name, str):
        raise TypeError(f"queue_type must be a str, not {type(name).__name__}")
    if name not in _QUEUE_TYPES:
        raise ValueError(f"queue_type must be 'classic' or 'quorum', not {name!r}")
    return _QUEUE_TYPES[name]


@dataclasses.dataclass(frozen=True)
class QueueConfig:
    """A logical queue: on RabbitMQ the queue, NAME.dead and its hold queues.
    Durations in seconds; message_ttl None means none; max_lost_runs None: the worker's
    lost-run budget. queue_type: "classic" (one node holds the queue) or "quorum"
    (replicated across a cluster's nodes; always durable, no priorities on RabbitMQ
    3.x; docs/broker.md)."""

    name: str
    queue_type: str = "classic"
    durable: bool = True
    max_priority: int = 10
    message_ttl: _convert.Duration | None = None
    prefetch: int = 16
    delay_granularity: _convert.Duration = 1.0
    retry: RetryPolicy | None = None
    max_lost_runs: int | None = None

    @contextlib.contextmanager
    def _c(self) -> Iterator[Any]:
        out = ffi.new("qy_queue_config **")
        call(lib.qy_queue_config_new, _convert.text(self.name, "queue name"), out)
        config = ffi.gc(out[0], lib.qy_queue_config_free)
        try:
            call(lib.qy_queue_config_set_type, config, _queue_type(self.queue_type))
            call(lib.qy_queue_config_set_durable, config, 1 if self.durable else 0)
            call(lib.qy_queue_config_set_max_priority, config,
                 _convert.unsigned(self.max_priority, "max_priority", 8))
            ttl = (-1 if self.message_ttl is None
                   else _convert.milliseconds(self.message_ttl, "message_ttl", 2**63 - 1))
            call(lib.qy_queue_config_set_message_ttl_ms, config, ttl)
            call(lib.qy_queue_config_set_prefetch, config,
                 _convert.unsigned(self.prefetch, "prefetch", 16, 1))
            call(lib.qy_queue_config_set_delay_granularity_ms, config,
                 _convert.milliseconds(self.delay_granularity, "delay_granularity", 2**32 - 1))
            with with_policy(self.retry) as policy:
                call(lib.qy_queue_config_set_retry_policy, config, policy)
            if self.max_lost_runs is not None:
                call(lib.qy_queue_config_set_max_lost_runs, config,
                     _convert.unsigned(self.max_lost_runs, "max_lost_runs", 32, 1))
            yield config
        finally:
            ffi.release(config)
