// RabbitMQ's management HTTP API, where the plugin is enabled: what AMQP cannot tell (the
// list of a vhost's queues, unacknowledged counts, a queue's consumers). Its figures are
// the plugin's statistics, refreshed every collect_statistics_interval (5 s by default).
#pragma once

#include "management_json.hpp"

#include <optional>
#include <string>
#include <vector>

namespace queuey_cli {

class ManagementApi {
public:
    // base: http://user:pass@host:port (the plugin's listener); vhost as the AMQP URL names
    // it (the path of amqp://host/VHOST, percent-encoded; empty for "/").
    ManagementApi(std::string base, std::string vhost);

    // Every queue of the vhost. Throws std::runtime_error naming the URL and the cause.
    std::vector<ManagedQueue> queues() const;
    // The consumers of one queue.
    std::vector<ManagedConsumer> consumers_of(const std::string &queue) const;

private:
    std::string get(const std::string &path) const;  // the body of a 200 answer
    std::string base_;
    std::string vhost_;  // percent-encoded, for a path segment
};

// The API that --management-url (else $QUEUEY_MANAGEMENT_URL) names, for the vhost of the
// broker URL amqp_url; nullopt when neither is set.
std::optional<ManagementApi> management_api(const std::string &flag, const std::string &amqp_url);

}  // namespace queuey_cli
