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
from .worker import Counter, Worker

__version__ = "0.2.0"


def library_version() -> str:
    """The version of the libqueuey that was loaded (qy_version_string)."""
    return str(_ffi.ffi.string(_ffi.lib.qy_version_string()).decode())


__all__ = [
    "BatchResult", "BrokerError", "Client", "ClosedError", "Consumer", "Counter", "Defer",
    "Delivery", "DeliveryError",
    "Envelope", "EnvelopeError", "Fatal", "InternalError", "InvalidArgumentError", "Job",
    "JobOutcome", "MemoryCount", "Message", "Producer", "QueueConfig", "QueueCounts",
    "QueueyError", "Retry", "RetryPolicy", "Status", "Worker", "library_version",
]
