#include "hold_index.hpp"

#include <algorithm>
#include <variant>

namespace queuey {

namespace {

// Short holds write an entry no more often than this: a retry policy's 1 s hold is
// declared every 250 ms under load (hold_leases.hpp).
constexpr std::chrono::milliseconds least_refresh{300000};

const std::string *string_argument(const QueueSpec &spec, std::string_view name) {
    const QueueArgument *argument = find_argument(spec, name);
    return argument ? std::get_if<std::string>(&argument->value) : nullptr;
}

}  // namespace

std::string hold_index_name(std::string_view queue) {
    std::string name(queue);
    name += ".deferred.index";
    return name;
}

std::optional<QueueSpec> hold_index_spec(const QueueSpec &hold) {
    const std::string *work_queue = string_argument(hold, "x-dead-letter-routing-key");
    if (!work_queue || !find_argument(hold, "x-message-ttl")) return std::nullopt;
    QueueSpec index{hold_index_name(*work_queue), hold.durable, {}};
    // A quorum index where the holds are quorum: it survives what they survive.
    if (const QueueArgument *type = find_argument(hold, "x-queue-type"))
        index.arguments.push_back(*type);
    return index;
}

HoldIndexTimes hold_index_times(const QueueSpec &hold) {
    const QueueArgument *argument = find_argument(hold, "x-expires");
    const std::int64_t *expires = argument ? std::get_if<std::int64_t>(&argument->value) : nullptr;
    if (!expires || *expires <= 0) return {};
    const std::chrono::milliseconds lease{*expires};
    // Near the limit an entry is written at every declare, which lives as long as allowed.
    const std::chrono::milliseconds room{max_rabbitmq_timer_ms -
                                         std::min(*expires, max_rabbitmq_timer_ms)};
    const auto refresh = std::min(std::max(lease / 2, least_refresh), room);
    return {refresh, refresh + lease};
}

}  // namespace queuey
