// How a benchmark's queues are declared, the same on both sides: queuey's default classic
// work queue with priorities (or another maximum priority, or none), or a quorum queue
// (issue 11). The raw side declares with rabbitmq-c the arguments queuey would, so both
// pay the same broker cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

struct QueueShape {
    static constexpr std::uint8_t default_max_priority = 10;  // queuey's

    bool quorum = false;  // x-queue-type quorum: no priorities on RabbitMQ 3.x
    std::uint8_t max_priority = default_max_priority;  // classic only; 0: no x-max-priority
};

// The ceiling's queue: durable classic without any argument, what no topology costs.
inline constexpr QueueShape plain_queue{false, 0};

// "classic" or "quorum"; with the number of broker nodes its benchmarks run on, the tag
// their report lines carry: "" for queuey's default, " [quorum, 3 nodes]",
// " [max-priority 2]" or " [max-priority none]" otherwise.
std::string queue_type_name(const QueueShape &shape);
std::string label_tag(const QueueShape &shape, std::size_t nodes);
