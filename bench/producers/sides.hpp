// The two sides of producers_bench: T threads enqueueing through one queuey client, and
// raw rabbitmq-c publishing on one connection with a window of unconfirmed publishes.
// Each run connects on its own, untimed, to a declared and empty queue.
#pragma once

#include "queue_shape.hpp"
#include "stopwatch.hpp"

#include <cstddef>
#include <string>
#include <vector>

class JobSet;

struct Workload {
    std::string url;     // amqp://user:pass@host:port/vhost, or a list URL,URL,...
    std::string queue;   // declared (durable, of `shape`) and empty
    const JobSet *jobs;  // the first `count` are published
    std::size_t count;
    QueueShape shape;
};

// What one run took, and how long each job waited for its confirm (microseconds, in no
// particular order).
struct ProducerRun {
    Timing timing;
    std::vector<double> latencies_us;
};

// `threads` threads on one client, each enqueueing its share of the jobs one at a time.
ProducerRun queuey_run(const Workload &w, std::size_t threads);

// One connection, at most `window` publishes unconfirmed at any time.
ProducerRun raw_run(const Workload &w, std::size_t window);

// `threads` threads, each on a connection of its own (a rabbitmq-c connection serves one
// thread), publishing its share one at a time and waiting for each confirm: the work of
// queuey's T blocking callers, done the raw way.
ProducerRun raw_blocking_run(const Workload &w, std::size_t threads);
