// A message taken from a queue by a browser, read as the tools show it: a job (its
// envelope, when the body is one) and, in a dead-letter queue, why it died and where
// it came from (the x-death-reason, x-original-queue and x-attempts headers that every
// dead-letter publish carries, from queuey and from the Rust crates alike).
#pragma once

#include "backend.hpp"
#include "envelope.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace queuey {

struct QueueMessage {
    BrowsedMessage message;  // body and every header
    // The body decoded; nullopt when it is not an envelope (a malformed dead letter),
    // and then decode_error says why.
    std::optional<Envelope> envelope;
    std::string decode_error;
    // The envelope's fields, or the AMQP message-id and type when the body is not one.
    std::string job_id;
    std::string job_type;
    // x-attempts of a dead letter, else the envelope's attempt (0 when neither).
    std::uint32_t attempt = 0;
    // x-death-reason, else why RabbitMQ dead-lettered it itself (broker_death_reason.hpp);
    // empty when not a dead letter.
    std::string reason;
    // x-original-queue, else the queue RabbitMQ dead-lettered it from, else the envelope's.
    std::string original_queue;
    // The headers as one JSON object, in the order the message carries them.
    std::string headers_json() const;
};

QueueMessage read_queue_message(BrowsedMessage message);

}  // namespace queuey
