// The queues of one logical queue on RabbitMQ: names, arguments and hold-queue TTLs, as
// behaviour.md section 3 lays them out. Pure: nothing here talks to a broker.
#pragma once

#include "retry_policy.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace queuey {

// The longest delay a hold queue can express: half the largest TTL, so that the hold
// queue's x-expires (twice the TTL) still fits.
inline constexpr std::uint64_t max_delay_ms = 2147483647;
// RabbitMQ's limit for x-expires and for a message's expiration, in ms.
inline constexpr std::int64_t max_rabbitmq_timer_ms = 4294967295;
// q.deferred.2147483647 must fit in an AMQP short string (255 bytes).
inline constexpr std::size_t max_queue_name_bytes = 235;
inline constexpr std::uint8_t default_max_priority = 10;
inline constexpr std::uint16_t default_prefetch = 16;
// How often a job may be lost (its worker gone mid-run) before it is dead-lettered.
inline constexpr std::uint32_t default_max_lost_runs = 3;
// The x-delivery-limit of a quorum work queue: how often the broker takes a job back
// unsettled before it dead-letters it to q.dead itself. RabbitMQ 4.0's own default, but
// declared on every version, with q.dead as the target (4.0 drops the job without one).
// A backstop only: the worker's lost-run rule republishes a job long before
// (worker/lost_runs.hpp; docs/broker.md, queue types).
inline constexpr std::int64_t quorum_delivery_limit = 20;

// What RabbitMQ queue type q, q.dead and the hold queues are declared as (docs/broker.md,
// queue types). classic is what the Rust crates declare.
enum class QueueType { classic, quorum };

// A logical queue as the user configures it.
struct QueueConfig {
    std::string name;
    QueueType type = QueueType::classic;
    bool durable = true;  // a quorum queue must be durable
    std::optional<std::uint8_t> max_priority = default_max_priority;  // nullopt: no priorities
    std::optional<std::int64_t> message_ttl_ms;                       // work queue TTL, if set
    std::uint16_t prefetch = default_prefetch;
    // The step that hold-queue TTLs are rounded up to; zero counts as 1 ms.
    std::chrono::milliseconds delay_granularity{1000};
    // The retry policy of the jobs of this queue, below the worker's overrides.
    std::optional<RetryPolicy> retry_policy;
    // The lost-run budget of the jobs of this queue; unset: the worker's.
    std::optional<std::uint32_t> max_lost_runs;

    // The priority a deferral publishes at: the queue's max, 0 without priorities. Kept
    // for a quorum queue too, which declares no x-max-priority: RabbitMQ 3.x ignores the
    // priority there, RabbitMQ 4 delivers a priority above 4 first.
    std::uint8_t deferral_priority() const { return max_priority.value_or(0); }
};

// An AMQP table value of the types the topology uses: 'B' (unsigned 8-bit),
// 'l' (signed 64-bit), 'S' (string) and 't' (boolean).
using QueueArgumentValue = std::variant<std::uint8_t, std::int64_t, std::string, bool>;

struct QueueArgument {
    std::string name;
    QueueArgumentValue value;
    bool operator==(const QueueArgument &) const = default;
};

// What is declared on the broker: queue.declare(name, durable, arguments).
struct QueueSpec {
    std::string name;
    bool durable = true;
    std::vector<QueueArgument> arguments;
    bool operator==(const QueueSpec &) const = default;
};

// The argument of that name, or nullptr.
const QueueArgument *find_argument(const QueueSpec &spec, std::string_view name);

// Returns a lost-run budget after checking it: Error(QY_ERR_INVALID_ARGUMENT,
// "max_lost_runs") for 0 (a job has to run once before it can be lost).
std::uint32_t checked_max_lost_runs(std::uint32_t max_lost_runs);

// Throws Error(QY_ERR_INVALID_ARGUMENT, "queue") unless name is a usable logical queue
// name: non-empty, valid UTF-8 without NUL, at most max_queue_name_bytes bytes.
void check_queue_name(std::string_view name);

std::string dead_letter_queue_name(std::string_view queue);                 // q.dead
std::string hold_queue_name(std::string_view queue, std::uint64_t ttl_ms);  // q.deferred.N

// The one check of every delay that can be set (a retry policy's, a deferral's, a delayed
// publish's): throws Error(QY_ERR_INVALID_ARGUMENT, field), naming the limit, when
// delay_ms is longer than max_delay_ms. Refused where it is set, such a delay cannot
// fail the settle of a job later.
void check_delay_ms(std::uint64_t delay_ms, const std::string &field);

// The TTL of the hold queue for a delay: rounded up to whole milliseconds, then up to a
// multiple of the granularity, at least one step. Throws Error(QY_ERR_INVALID_ARGUMENT,
// "delay") when the result exceeds max_delay_ms (never clamped: a hold may be late,
// never early) or the delay is negative.
std::uint64_t hold_ttl_ms(std::chrono::nanoseconds delay, std::chrono::milliseconds granularity);

// Each throws like check_queue_name for a bad config.name, and Error(QY_ERR_INVALID_ARGUMENT,
// "durable") for a quorum queue that is not durable.
QueueSpec work_queue_spec(const QueueConfig &config);
QueueSpec dead_letter_queue_spec(const QueueConfig &config);
QueueSpec hold_queue_spec(const QueueConfig &config, std::uint64_t ttl_ms);
// The hold queue that delays a job of config by delay (hold_ttl_ms at its granularity).
QueueSpec hold_queue_spec(const QueueConfig &config, std::chrono::nanoseconds delay);

}  // namespace queuey
