// The management API's answers, read into what the commands show. Any bytes are read
// without a crash: a field that is missing or of another type counts as 0 or "" (the
// API leaves counts out until a queue's first statistics); an answer that is no JSON
// throws (tests/fuzz/fuzz_management_json.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace queuey_cli {

struct ManagedQueue {
    std::string name;
    std::uint64_t ready = 0;
    std::uint64_t unacknowledged = 0;
    std::uint64_t consumers = 0;
};

struct ManagedConsumer {
    std::string tag;
    std::string connection_name;  // the client's connection_name property, "" when none
    std::string peer;             // host:port of the client
    std::uint64_t prefetch = 0;   // 0: unlimited
    bool ack_required = true;
};

// GET /api/queues/VHOST. Throws std::runtime_error when it is no JSON list.
std::vector<ManagedQueue> read_queue_list(std::string_view body);

// GET /api/queues/VHOST/QUEUE's consumer_details, with the names the clients gave their
// connections from GET /api/vhosts/VHOST/connections (a channel names its connection by
// addresses only). Throws std::runtime_error when either is no JSON.
std::vector<ManagedConsumer> read_consumers(std::string_view queue, std::string_view connections);

}  // namespace queuey_cli
