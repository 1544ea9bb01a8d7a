// The names of a work queue's companions in queuey's topology (docs/broker.md): what the
// commands look for, and how they recognise them in a list of queues.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace queuey_cli {

std::string dead_name(const std::string &queue);                        // QUEUE.dead
std::string hold_name(const std::string &queue, std::uint64_t ttl_ms);  // QUEUE.deferred.TTL
std::string hold_index_name(const std::string &queue);                  // QUEUE.deferred.index

// The TTL of name when it is a hold queue of queue, else nullopt.
std::optional<std::uint64_t> hold_ttl_of(const std::string &queue, const std::string &name);

// Whether name is a dead-letter or hold queue of some queue (by its suffix alone).
bool is_companion(const std::string &name);

}  // namespace queuey_cli
