// The index of a work queue's hold queues (docs/broker.md, the hold index). AMQP cannot
// list queues, so without RabbitMQ's management API nobody could find a hold queue whose
// TTL they do not guess. Whoever declares a hold queue also puts its name, as a message
// that expires after the queue can, into QUEUE.deferred.index; `queuey stats` browses it.
// Pure: what the index is declared as, and how long an entry must live.
#pragma once

#include "topology.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

std::string hold_index_name(std::string_view queue);  // q.deferred.index

// The index beside the work queue a hold queue releases into (its dead-letter routing
// key), of the hold's type and durability; nullopt for a spec that is not a hold queue.
std::optional<QueueSpec> hold_index_spec(const QueueSpec &hold);

// When a declare of the hold writes a new entry, and for how long the entry lives. A hold
// queue outlives its last declare by its x-expires (E); a declarer writes an entry at most
// every refresh (E / 2, at least 5 minutes, so that short holds do not flood the index)
// and each lives refresh + E: the newest entry outlives the queue. Both zero for a spec
// without x-expires. The lifetime never passes RabbitMQ's limit for an expiration.
struct HoldIndexTimes {
    std::chrono::milliseconds refresh{0};
    std::chrono::milliseconds lifetime{0};
};
HoldIndexTimes hold_index_times(const QueueSpec &hold);

}  // namespace queuey
