// How a benchmark's queues are declared, the same on both sides: queuey's default classic
// work queue with priorities, or a quorum queue (issue 11). The raw side declares with
// rabbitmq-c the arguments queuey would, so both pay the same broker cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

struct QueueShape {
    bool quorum = false;             // x-queue-type quorum: no priorities on RabbitMQ 3.x
    std::uint8_t max_priority = 10;  // classic only: queuey's default
};

// "classic" or "quorum"; with the number of broker nodes its benchmarks run on, the tag
// their report lines carry: "" for queuey's default, " [quorum, 3 nodes]" otherwise.
std::string queue_type_name(const QueueShape &shape);
std::string label_tag(const QueueShape &shape, std::size_t nodes);
