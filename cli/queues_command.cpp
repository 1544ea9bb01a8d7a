#include "queues_command.hpp"

#include "queue_names.hpp"
#include "usage_error.hpp"
#include "utf8_text.hpp"

#include <map>

namespace queuey_cli {

namespace {

// A work queue of queuey's is one that has its dead-letter queue beside it (every
// declare makes both); its holds are found by name.
void queues(const GlobalOptions &global) {
    const std::optional<ManagementApi> management = global.management();
    if (!management)
        throw UsageError(
            "queues needs RabbitMQ's management API: pass --management-url or set "
            "QUEUEY_MANAGEMENT_URL (AMQP cannot list queues)");
    const std::vector<ManagedQueue> listed = management->queues();
    std::map<std::string, const ManagedQueue *> by_name;
    for (const ManagedQueue &queue : listed) by_name[queue.name] = &queue;
    std::size_t shown = 0;
    for (const auto &[name, queue] : by_name) {
        const auto dead = by_name.find(dead_name(name));
        if (is_companion(name) || dead == by_name.end()) continue;
        std::uint64_t held = 0, holds = 0;
        for (const ManagedQueue &other : listed)
            if (hold_ttl_of(name, other.name)) held += other.ready, ++holds;
        JsonLine line;
        line.add("queue", name)
            .add("ready", static_cast<std::int64_t>(queue->ready))
            .add("unacknowledged", static_cast<std::int64_t>(queue->unacknowledged))
            .add("consumers", static_cast<std::int64_t>(queue->consumers))
            .add("held", static_cast<std::int64_t>(held))
            .add("hold_queues", static_cast<std::int64_t>(holds))
            .add("dead", static_cast<std::int64_t>(dead->second->ready));
        global.print(line, terminal_text(name) + ": " + std::to_string(queue->ready) + " ready, " +
                               std::to_string(queue->unacknowledged) + " unacknowledged, " +
                               std::to_string(queue->consumers) + " consumer(s), " +
                               std::to_string(held) + " held in " + std::to_string(holds) +
                               " hold queue(s), " + std::to_string(dead->second->ready) + " dead");
        ++shown;
    }
    if (!global.json) std::printf("%zu queuey queue(s)\n", shown);
}

}  // namespace

void add_queues_command(CLI::App &app, const GlobalOptions &global) {
    CLI::App *command = app.add_subcommand(
        "queues",
        "The vhost's queuey work queues (those with a QUEUE.dead beside them), each with its "
        "ready, unacknowledged, held and dead jobs and its consumers. Needs RabbitMQ's "
        "management API (--management-url): AMQP cannot list queues.");
    command->callback([&global] { queues(global); });
}

}  // namespace queuey_cli
