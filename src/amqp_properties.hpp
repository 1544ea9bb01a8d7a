// The AMQP properties and headers that accompany an envelope on RabbitMQ, derived from
// the envelope alone so that every publish path (enqueue, retry, deferral, dead letter)
// sends the same ones. The broker layer turns them into rabbitmq-c structures.
#pragma once

#include "dead_letter_cause.hpp"
#include "envelope.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace queuey {

// AMQP short strings (message-id, type) hold at most this many bytes.
inline constexpr std::size_t amqp_short_string_max = 255;

struct AmqpHeader {
    std::string name;
    std::variant<std::uint32_t, std::string> value;  // AMQP field types 'i' and 'S'

    bool operator==(const AmqpHeader &) const = default;
};

inline constexpr std::string_view json_content_type = "application/json";
inline constexpr std::uint8_t persistent_delivery = 2;  // AMQP delivery-mode

struct AmqpProperties {
    // Always one of queuey's own literals: a view (NUL-terminated), no copy per message.
    std::string_view content_type = json_content_type;
    std::uint8_t delivery_mode = persistent_delivery;
    std::string message_id;
    std::string type;
    std::uint8_t priority = 0;
    std::vector<AmqpHeader> headers;
    // Never an expiration: delays are hold queues with a queue-level TTL.

    bool operator==(const AmqpProperties &) const = default;
};

// The most headers a message queuey publishes carries (a dead letter with an exception).
inline constexpr std::size_t max_headers = 7;

AmqpProperties publish_properties(const Envelope &env);
// The same, written over props (every field): its strings and vector keep their capacity.
void set_publish_properties(const Envelope &env, AmqpProperties &props);

// The header that carries how often a job was lost (docs/worker.md, lost runs): queuey's
// own, on the copy that a worker publishes of a redelivered job.
inline constexpr std::string_view lost_runs_header = "x-lost-runs";
// The header a quorum queue puts on a delivery: how often it took the message back
// unsettled (lost consumers, closed channels, rejects with requeue).
inline constexpr std::string_view delivery_count_header = "x-delivery-count";
// On a schedule's fires and records (docs/scheduling.md): the schedule's name, and the
// fire time (a record of skipped fires: the time up to which fires were accounted for)
// as RFC 3339 UTC. Rust workers read only the body: the headers change nothing for them.
inline constexpr std::string_view schedule_header = "x-queuey-schedule";
inline constexpr std::string_view fire_time_header = "x-queuey-fire-time";

// publish_properties plus x-lost-runs (when not 0).
AmqpProperties lost_run_properties(const Envelope &env, std::uint32_t lost_runs);

// publish_properties plus x-death-reason, x-original-queue and x-attempts.
AmqpProperties dead_letter_properties(const Envelope &env, std::string_view reason);
// The same, plus x-exception when the cause has one.
AmqpProperties dead_letter_properties(const Envelope &env, const DeadLetterCause &cause);

}  // namespace queuey
