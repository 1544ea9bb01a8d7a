// What one timed run gets, and the contenders that run it: raw rabbitmq-c and queuey, and
// the ceiling (raw rabbitmq-c on a queue without arguments).
// Each run connects on its own, untimed, and returns what its timed part took.
#pragma once

#include "queue_shape.hpp"
#include "stopwatch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

class JobSet;

struct Workload {
    std::string url;     // amqp://user:pass@host:port/vhost, or a list URL,URL,...
    std::string queue;   // declared (durable, of `shape`) and empty, or preloaded
    const JobSet *jobs;  // the first `count` are published or, preloaded, consumed
    std::size_t count;
    std::size_t batch;  // publishes in flight at once in enqueue_batch
    std::uint16_t prefetch;
    QueueShape shape;
};

using RunFn = Timing (*)(const Workload &);

struct Contender {
    const char *name;
    RunFn enqueue_single;  // publish, wait for the confirm, next
    RunFn enqueue_batch;   // publish `batch`, wait for all their confirms, next batch
    RunFn consume_ack;     // receive and ack `count` preloaded jobs
    bool on_plain_queue;   // declares plain_queue, not the workload's shape: the ceiling
};

extern const Contender ceiling_contender;
extern const Contender raw_contender;
extern const Contender queuey_contender;

// Publishes the workload's jobs the raw way (pipelined), untimed: consume_ack's setup.
void preload(const Workload &w);
