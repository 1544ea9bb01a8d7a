// Package queuey is the Go binding of queuey, a job queue on RabbitMQ, over its C ABI
// (libqueuey.so and queuey/queuey.h, found with pkg-config).
//
// A Client connects to a broker ("amqp://user:pass@host/vhost") or to an in-process
// backend ("memory://"). A Producer puts jobs on declared queues; a Worker runs them
// with handlers registered per job type and settles each by the error its handler
// returns: nil acknowledges, Retry or any other error is retryable, Fatal dead-letters,
// Defer puts the job back for later. Envelope is the job as it travels on a queue.
// Schedule is a periodic job (a cron expression or an interval): its next fires and
// their job ids.
//
// Failures are *Error values carrying the C status; compare them with errors.Is and the
// Err* sentinels. Every handle has a Close method, the normal way to free it; a
// finalizer frees one that was forgotten. Clients, producers and workers may be used
// from many goroutines; handlers run on the worker's own threads, several at once.
package queuey

// #cgo pkg-config: queuey
// #include <queuey/queuey.h>
import "C"
