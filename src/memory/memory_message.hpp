// A job as the in-process backend carries it: the envelope a RabbitMQ consumer would
// decode from its body, so that handlers see the same envelope on both backends.
#pragma once

#include "../amqp_properties.hpp"
#include "../envelope.hpp"
#include "../scheduled_fire.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace queuey {

struct MemoryMessage {
    Envelope envelope;
    // Non-empty when the envelope's body would not decode (the decoder's message): on
    // RabbitMQ such a body goes to the dead letters when it is consumed, and so it does here.
    std::string malformed;
    // How often the job was lost before (the x-lost-runs header on RabbitMQ).
    std::uint32_t lost_runs = 0;
    // For a dead letter: the headers its publish to q.dead carries on RabbitMQ
    // (x-death-reason, x-original-queue, x-attempts and the envelope's own).
    std::vector<AmqpHeader> dead_letter_headers{};
    // Set on a fire as the memory backend's scheduler enqueues it (its headers on RabbitMQ).
    std::optional<ScheduledFire> fire{};
};

// Passes envelope through its wire form (encode, then decode), as a publish to RabbitMQ
// and a delivery from it would.
MemoryMessage memory_message(const Envelope &envelope);

}  // namespace queuey
