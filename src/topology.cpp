#include "topology.hpp"

#include "envelope.hpp"
#include "error.hpp"

#include <algorithm>
#include <string>

namespace queuey {

namespace {

// The largest x-expires the hold tables write: RabbitMQ's limit for the argument.
constexpr std::int64_t max_hold_expires_ms = max_rabbitmq_timer_ms;
// A quorum hold queue's lease lasts at least this much past its TTL. A held job is lost
// when the queue expires before the job does, and losing a node (a leader election, a
// reconnect to another node, a dead-letter publish waiting for q's new leader) easily
// takes longer than one TTL. The Rust crates declare no quorum queues, so nothing else
// has to agree on this argument (docs/broker.md, queue types).
constexpr std::int64_t quorum_hold_lease_floor_ms = 300000;

[[noreturn]] void throw_bad_delay(const std::string &what, const std::string &field = "delay") {
    throw Error(
        QY_ERR_INVALID_ARGUMENT, field,
        what + "; the longest delay is " + std::to_string(max_delay_ms) + " ms (about 24.8 days)");
}

// A TTL that did not come out of hold_ttl_ms would give a hold queue nobody else names.
void check_hold_ttl(std::uint64_t ttl_ms) {
    if (ttl_ms == 0) throw_bad_delay("a hold queue TTL of 0 ms is not a hold");
    if (ttl_ms > max_delay_ms)
        throw_bad_delay("a hold queue TTL of " + std::to_string(ttl_ms) + " ms is too long");
}

// What every queue of a config is declared with, whatever its role: its type.
std::vector<QueueArgument> type_arguments(const QueueConfig &config) {
    check_queue_name(config.name);
    if (config.type == QueueType::classic) return {};
    if (!config.durable)
        throw Error(QY_ERR_INVALID_ARGUMENT, "durable",
                    "a quorum queue is always durable (RabbitMQ refuses a non-durable one)");
    return {{"x-queue-type", QueueArgumentValue(std::string("quorum"))}};
}

// A quorum queue dead-letters at most once by default: a job that expires from a hold, or
// passes q's delivery limit, while its target has no leader would be dropped. At least
// once keeps it until the target confirms it, which RabbitMQ allows only with
// reject-publish (it matters only with a length limit, which queuey never sets).
void append_quorum_dead_lettering(const QueueConfig &config,
                                  std::vector<QueueArgument> &arguments) {
    if (config.type != QueueType::quorum) return;
    arguments.push_back(
        {"x-dead-letter-strategy", QueueArgumentValue(std::string("at-least-once"))});
    arguments.push_back({"x-overflow", QueueArgumentValue(std::string("reject-publish"))});
}

}  // namespace

std::uint32_t checked_max_lost_runs(std::uint32_t max_lost_runs) {
    if (max_lost_runs == 0)
        throw Error(QY_ERR_INVALID_ARGUMENT, "max_lost_runs",
                    "must be at least 1 (a job is dead-lettered when it has been lost this often)");
    return max_lost_runs;
}

void check_queue_name(std::string_view name) {
    check_name_argument("queue", name, false);
    if (name.size() > max_queue_name_bytes)
        throw Error(QY_ERR_INVALID_ARGUMENT, "queue",
                    "is " + std::to_string(name.size()) + " bytes long; the longest is " +
                        std::to_string(max_queue_name_bytes) +
                        " bytes, so that its longest hold queue name (the name + \"" +
                        hold_queue_name("", max_delay_ms) + "\") fits in 255 bytes");
}

std::string dead_letter_queue_name(std::string_view queue) {
    std::string name(queue);
    name += ".dead";
    return name;
}

std::string hold_queue_name(std::string_view queue, std::uint64_t ttl_ms) {
    std::string name(queue);
    name += ".deferred.";
    name += std::to_string(ttl_ms);
    return name;
}

void check_delay_ms(std::uint64_t delay_ms, const std::string &field) {
    if (delay_ms > max_delay_ms)
        throw_bad_delay("a delay of " + std::to_string(delay_ms) + " ms is too long", field);
}

std::uint64_t hold_ttl_ms(std::chrono::nanoseconds delay, std::chrono::milliseconds granularity) {
    if (delay.count() < 0)
        throw_bad_delay("a delay must not be negative (got " + std::to_string(delay.count()) +
                        " ns)");
    // Whole milliseconds, rounded up; a non-negative int64 cannot overflow here.
    const auto ns = static_cast<std::uint64_t>(delay.count());
    const std::uint64_t ms = ns / 1'000'000 + (ns % 1'000'000 != 0 ? 1 : 0);
    check_delay_ms(ms, "delay");

    const std::uint64_t step =
        granularity.count() <= 0 ? 1 : static_cast<std::uint64_t>(granularity.count());
    // No overflow: with step > ms there is one step (at most 2^63 - 1); otherwise
    // steps * step < ms + step <= 2 * max_delay_ms.
    const std::uint64_t steps = std::max<std::uint64_t>(1, ms / step + (ms % step != 0 ? 1 : 0));
    const std::uint64_t ttl = steps * step;
    if (ttl > max_delay_ms)
        throw_bad_delay("a delay of " + std::to_string(ms) + " ms rounds up to " +
                        std::to_string(ttl) + " ms at a granularity of " + std::to_string(step) +
                        " ms, which is too long");
    return ttl;
}

const QueueArgument *find_argument(const QueueSpec &spec, std::string_view name) {
    for (const QueueArgument &argument : spec.arguments)
        if (argument.name == name) return &argument;
    return nullptr;
}

QueueSpec work_queue_spec(const QueueConfig &config) {
    QueueSpec spec{config.name, config.durable, type_arguments(config)};
    // RabbitMQ 3.10 and 4.0 refuse x-max-priority on a quorum queue (PRECONDITION_FAILED).
    if (config.max_priority && config.type == QueueType::classic)
        spec.arguments.push_back({"x-max-priority", QueueArgumentValue(*config.max_priority)});
    if (config.message_ttl_ms)
        spec.arguments.push_back({"x-message-ttl", QueueArgumentValue(*config.message_ttl_ms)});
    if (config.type == QueueType::quorum)  // a job past the delivery limit goes to q.dead
        spec.arguments.insert(spec.arguments.end(),
                              {
                                  {"x-delivery-limit", QueueArgumentValue(quorum_delivery_limit)},
                                  {"x-dead-letter-exchange", QueueArgumentValue(std::string())},
                                  {"x-dead-letter-routing-key",
                                   QueueArgumentValue(dead_letter_queue_name(config.name))},
                              });
    append_quorum_dead_lettering(config, spec.arguments);
    return spec;
}

QueueSpec dead_letter_queue_spec(const QueueConfig &config) {
    return QueueSpec{dead_letter_queue_name(config.name), true, type_arguments(config)};
}

QueueSpec hold_queue_spec(const QueueConfig &config, std::uint64_t ttl_ms) {
    std::vector<QueueArgument> arguments = type_arguments(config);
    check_hold_ttl(ttl_ms);
    const auto ttl = static_cast<std::int64_t>(ttl_ms);
    // With ttl_ms <= max_delay_ms, 2 * ttl never reaches the cap; the min keeps the table
    // of behaviour.md literally true should the limit ever move.
    std::int64_t expires = std::min(2 * ttl, max_hold_expires_ms);
    if (config.type == QueueType::quorum)
        expires =
            std::min(std::max(expires, ttl + quorum_hold_lease_floor_ms), max_hold_expires_ms);
    arguments.insert(arguments.end(),
                     {
                         {"x-message-ttl", QueueArgumentValue(ttl)},
                         {"x-dead-letter-exchange", QueueArgumentValue(std::string())},
                         {"x-dead-letter-routing-key", QueueArgumentValue(config.name)},
                         {"x-expires", QueueArgumentValue(expires)},
                     });
    append_quorum_dead_lettering(config, arguments);
    return QueueSpec{hold_queue_name(config.name, ttl_ms), config.durable, std::move(arguments)};
}

QueueSpec hold_queue_spec(const QueueConfig &config, std::chrono::nanoseconds delay) {
    return hold_queue_spec(config, hold_ttl_ms(delay, config.delay_granularity));
}

}  // namespace queuey
