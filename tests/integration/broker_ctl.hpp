// What rabbitmqctl can tell and do that AMQP cannot: queue arguments with the field
// types the broker stored, connections by their client-given name, closing them,
// stopping and starting the node's application, policies.
#pragma once

#include "broker_fixture.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace queuey_it {

// One queue argument as the broker stored it: the type is RabbitMQ's name for the AMQP
// field type it was declared with ("unsignedbyte" for 'B', "long" for 'l', "longstr"
// for 'S', "signedint" for 'I', ...); the value as Erlang prints it (strings bare).
struct BrokerArgument {
    std::string type;
    std::string value;
    bool operator==(const BrokerArgument &) const = default;
};
inline void PrintTo(const BrokerArgument &argument, std::ostream *out) {
    *out << argument.type << " " << argument.value;
}

struct BrokerQueue {
    bool durable = false;
    std::map<std::string, BrokerArgument> arguments;
};

// The queues of those names as the broker has them (rabbitmqctl eval over
// rabbit_amqqueue:lookup/1, amqqueue:is_durable/1 and amqqueue:get_arguments/1), in one
// rabbitmqctl call; nothing for a queue that does not exist. RabbitMQ 4.0 stores
// x-queue-type classic on a classic queue declared without a type: left out unless
// with_added_type, so that a test compares what was declared on every version.
std::map<std::string, std::optional<BrokerQueue>> inspect_queues(
    const BrokerEndpoint &broker, const std::vector<std::string> &names,
    bool with_added_type = false);

// One column of rabbitmqctl list_connections ("pid", "timeout", "ssl", ...) for each
// connection whose client property connection_name is name.
std::vector<std::string> connection_column(const BrokerEndpoint &broker, const std::string &name,
                                           const std::string &column);
inline std::vector<std::string> connection_pids(const BrokerEndpoint &broker,
                                                const std::string &name) {
    return connection_column(broker, name, "pid");
}
// rabbitmqctl close_connection on each connection called name; returns how many.
std::size_t close_connections(const BrokerEndpoint &broker, const std::string &name);

// The deliveries not acknowledged yet on the channels of the connections called name
// (rabbitmqctl list_channels messages_unacknowledged), added up.
long unacknowledged_on_channels(const BrokerEndpoint &broker, const std::string &name);

// The prefetch count of each consumer of queue (rabbitmqctl list_consumers).
std::vector<int> consumer_prefetches(const BrokerEndpoint &broker, const std::string &queue);

struct QueueCounts {
    long ready = -1;
    long unacknowledged = -1;
};
// rabbitmqctl list_queues messages_ready messages_unacknowledged for queue.
QueueCounts queue_counts(const BrokerEndpoint &broker, const std::string &queue);

// Raises or clears the node's memory alarm (rabbit_alarm), which blocks publishers.
void set_memory_alarm(const BrokerEndpoint &broker, bool raised);

// Raises the broker's memory alarm for as long as it lives.
class MemoryAlarm {
public:
    explicit MemoryAlarm(const BrokerEndpoint &broker) : broker_(broker) {
        set_memory_alarm(broker_, true);
    }
    ~MemoryAlarm();
    MemoryAlarm(const MemoryAlarm &) = delete;
    MemoryAlarm &operator=(const MemoryAlarm &) = delete;

private:
    const BrokerEndpoint &broker_;
};

// Sets the node's max_message_size (channels opened after this call obey it).
void set_max_message_size(const BrokerEndpoint &broker, std::uint64_t bytes);

// rabbitmqctl stop_app / start_app (waits until the node serves again).
void stop_app(const BrokerEndpoint &broker);
void start_app(const BrokerEndpoint &broker);

// rabbitmqctl set_policy / clear_policy, applied to queues.
void set_queue_policy(const BrokerEndpoint &broker, const std::string &name,
                      const std::string &pattern, const std::string &definition_json);
void clear_policy(const BrokerEndpoint &broker, const std::string &name);

}  // namespace queuey_it
