"""queuey: a job queue on RabbitMQ, over libqueuey's C API.

    with queuey.Client("amqp://guest:guest@localhost/") as client:
        client.declare("emails")
        with client.producer() as producer:
            producer.enqueue("emails", "send-email", {"to": "a@b.c"})
"""
from . import _ffi
from .client import Client, MemoryCount
from .config import QueueConfig, RetryPolicy
from .consumer import Consumer, Delivery
from .envelope import Envelope
from .errors import (BrokerError, ClosedError, DeliveryError, EnvelopeError, InternalError,
                     InvalidArgumentError, QueueyError, Status)
from .job import Job
from .messages import Message, QueueCounts
from .outcomes import Defer, Fatal, JobOutcome, Retry
from .producer import BatchResult, Producer
from .schedule import Schedule
from .scheduler import Scheduler, SchedulerCounts
from .worker import Counter, Worker

__version__ = "0.3.0"


def library_version() -> str:
    """The version of the libqueuey that was loaded (qy_version_string)."""
    return str(_ffi.ffi.string(_ffi.lib.qy_version_string()).decode())


def release_thread_memory() -> None:
    """Frees what the calling thread keeps for its next publish on RabbitMQ
    (qy_release_thread_memory): its last single publish's message (at most a 64 KiB body)
    and its last batch's last piece (at most 2.5 MiB). A thread that never published keeps
    nothing, and one that exits frees what it kept. The memory goes back to malloc, not to
    the system: see release_cached_memory()."""
    _ffi.lib.qy_release_thread_memory()


def release_cached_memory() -> None:
    """Frees what every thread keeps for its next publish and what the process keeps (up
    to 16 MiB of freed delivery bodies), then has glibc's malloc give its free memory back
    to the system (qy_release_cached_memory). For when the process goes idle, not per
    job."""
    _ffi.lib.qy_release_cached_memory()


__all__ = [
    "BatchResult", "BrokerError", "Client", "ClosedError", "Consumer", "Counter", "Defer",
    "Delivery", "DeliveryError",
    "Envelope", "EnvelopeError", "Fatal", "InternalError", "InvalidArgumentError", "Job",
    "JobOutcome", "MemoryCount", "Message", "Producer", "QueueConfig", "QueueCounts",
    "QueueyError", "Retry", "RetryPolicy", "Schedule", "Scheduler", "SchedulerCounts", "Status",
    "Worker", "library_version",
    "release_cached_memory", "release_thread_memory",
]
