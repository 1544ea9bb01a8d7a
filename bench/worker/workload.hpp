// What one timed run of worker_bench gets, and the runs of its two sides: raw rabbitmq-c
// and a queuey worker. Each run connects on its own, untimed, and returns what its timed
// part took.
#pragma once

#include "stopwatch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

class JobSet;

struct WorkerWorkload {
    std::string url;          // amqp://user:pass@host:port/vhost
    std::string queue;        // declared (durable, x-max-priority 10), preloaded with `count` jobs
    std::string retry_queue;  // raw retry_once: where its copies go (declared, empty)
    const JobSet *jobs;       // the preloaded jobs, in queue order
    std::size_t count;
    std::uint16_t prefetch;
    std::uint32_t concurrency;  // the queuey worker's threads
    bool fail_once;             // every job fails its first attempt with a retryable error
};

// Receives and acks the `count` preloaded jobs (fail_once: see raw_side.cpp).
Timing raw_run(const WorkerWorkload &w);

// A queuey worker with a no-op handler, from qy_worker_run() until it has acked `count`
// jobs (fail_once: each job once retried through the hold queue, then acked).
Timing queuey_run(const WorkerWorkload &w);

// The hold queue that queuey_run's retries go through.
std::string hold_queue_of(const std::string &queue);
