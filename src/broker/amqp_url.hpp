// Broker addresses: amqp://user:pass@host:port/vhost and amqps://..., parsed without
// rabbitmq-c (whose parser edits its input and cannot say what is wrong).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace queuey {

struct AmqpUrl {
    bool tls = false;
    std::string user = "guest";
    std::string password = "guest";
    std::string host = "localhost";
    std::uint16_t port = 5672;  // 5671 for amqps
    std::string vhost = "/";

    // The URL with the password replaced by "***", for errors and logs.
    std::string redacted() const;
};

// Parses an AMQP URI (RabbitMQ's URI spec): scheme amqp or amqps; user, password and
// vhost percent-decoded; an empty path or "/" is the vhost "/", "/%2f" too; IPv6 hosts
// in brackets. Throws Error(QY_ERR_INVALID_ARGUMENT, "url") with a message that never
// contains the password.
AmqpUrl parse_amqp_url(std::string_view url);

}  // namespace queuey
