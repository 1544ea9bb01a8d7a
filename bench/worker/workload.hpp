// What one timed run of worker_bench gets, and the runs of its two sides: raw rabbitmq-c
// and a queuey worker. Each run connects on its own, untimed, and returns what its timed
// part took.
#pragma once

#include "queue_shape.hpp"
#include "stopwatch.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

class JobSet;

struct WorkerWorkload {
    std::string url;         // amqp://user:pass@host:port/vhost, or a list URL,URL,...
    std::string queue;       // declared (durable, of `shape`), preloaded with `count` jobs
    std::string hold_queue;  // raw retry_once: where its copies wait (declared, empty)
    const JobSet *jobs;      // the preloaded jobs, in queue order
    std::size_t count;
    std::uint16_t prefetch;
    std::uint32_t concurrency;  // the queuey worker's threads
    bool fail_once;             // every job fails its first attempt with a retryable error
    QueueShape shape;           // of the work queue and the hold queues
    // If set, the drains call it after each job's ack (raw) or success (queuey, in its
    // handler): the soak samples memory there.
    std::function<void()> after_job{};
};

// Receives and acks the `count` preloaded jobs (fail_once: see raw_side.cpp).
Timing raw_run(const WorkerWorkload &w);

// The drain with `concurrency` handler threads fed by one reading thread, as a
// rabbitmq-c program runs them (raw_threads_side.cpp): the like-for-like baseline of a
// worker with that many threads.
Timing raw_threads_run(const WorkerWorkload &w);

// A queuey worker with a no-op handler, from qy_worker_run() until it has acked `count`
// jobs (fail_once: each job once retried through the hold queue, then acked).
Timing queuey_run(const WorkerWorkload &w);

// How long a retried job waits in a hold queue, on both sides: a retry with a 0 ms delay
// waits one step of the queue's delay granularity, queuey's default step here. Finer
// steps lose jobs: queuey's hold queues expire after 2 x their TTL without a redeclare
// (spec), and on a loaded machine RabbitMQ deleted them with jobs inside (measured with
// 1 ms: ~6% of the jobs lost, 10 ms: ~0.3%, 100 ms: 69 of 2000 in 1 run of ~16).
inline constexpr std::int64_t hold_ttl_ms = 1000;

// The hold queue that queuey_run's retries go through.
std::string hold_queue_of(const std::string &queue);
