// A plain rabbitmq-c connection that checks what is really on the broker, independently
// of queuey's own AMQP code: basic.get with every property and header (with its AMQP
// field kind), raw publishes, queue counts, declares and deletes.
#pragma once

#include "broker_fixture.hpp"

#include <amqp.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace queuey_it {

struct RawHeader {
    std::string name;
    std::uint8_t kind = 0;  // amqp_field_value_t.kind: AMQP_FIELD_KIND_U32 ('i'), _UTF8 ('S'), ...
    std::string text;       // for string kinds
    std::int64_t integer = 0;  // for integer kinds (unsigned ones fit)
};

struct RawMessage {
    std::string body;
    bool redelivered = false;
    std::optional<std::string> content_type;
    std::optional<std::uint8_t> delivery_mode;
    std::optional<std::string> message_id;
    std::optional<std::string> type;
    std::optional<std::uint8_t> priority;
    std::optional<std::string> expiration;
    bool has_headers = false;
    std::vector<RawHeader> headers;

    // The header of that name, or nullptr.
    const RawHeader *header(std::string_view name) const;
};

// A queue argument for a raw declare: 'l' (signed 64-bit) or 'S' (string).
struct RawArgument {
    std::string name;
    std::variant<std::int64_t, std::string> value;
};

class RawAmqp {
public:
    // Connects to the broker and opens a channel for RPCs and one in confirm mode for
    // publishes. Throws std::runtime_error.
    explicit RawAmqp(const BrokerEndpoint &broker);
    ~RawAmqp();
    RawAmqp(const RawAmqp &) = delete;
    RawAmqp &operator=(const RawAmqp &) = delete;

    // basic.get with auto-ack: the message at the head of queue, or nothing when it is empty.
    std::optional<RawMessage> get(const std::string &queue);
    // basic.get without ack: the message stays this connection's, unsettled, until it is
    // returned by return_message, its channel closes (reopen_get_channel) or the
    // connection closes. delivery_tag is its tag.
    std::optional<RawMessage> get_unsettled(const std::string &queue, std::uint64_t &delivery_tag);
    enum class Return { reject, nack };
    // basic.reject or basic.nack of delivery_tag with requeue.
    void return_message(std::uint64_t delivery_tag, Return how);
    // Closes the channel get_unsettled uses (its unsettled messages go back) and opens it again.
    void reopen_get_channel();
    // The "version" the broker sent in connection.start's server-properties ("4.0.5").
    std::string server_version() const;
    // Every message of queue, in order (auto-acked).
    std::vector<RawMessage> drain(const std::string &queue);
    // Publishes body to queue on the default exchange, persistent, with the headers
    // (integer kinds and AMQP_FIELD_KIND_UTF8) and message id if given, and waits for the
    // broker's confirm. Returns false when the broker nacked it.
    bool publish(const std::string &queue, std::string_view body,
                 const std::vector<RawHeader> &headers = {}, const std::string &message_id = "");
    // The ready messages of queue (passive declare), or nothing when there is no such queue.
    std::optional<std::uint32_t> message_count(const std::string &queue);
    bool exists(const std::string &queue) { return message_count(queue).has_value(); }
    // Waits until queue holds exactly count ready messages; returns the last count seen.
    std::optional<std::uint32_t> wait_for_count(const std::string &queue, std::uint32_t count,
                                                std::chrono::milliseconds timeout);
    // exclusive: the queue is this connection's alone and goes with it.
    void declare(const std::string &queue, bool durable, const std::vector<RawArgument> &arguments,
                 bool exclusive = false);
    void delete_queue(const std::string &queue);

private:
    std::optional<RawMessage> get_from(const std::string &queue, bool auto_ack,
                                       std::uint64_t &delivery_tag);
    // Throws unless reply is normal; a channel the broker closed is reopened first.
    void check(amqp_rpc_reply_t reply, amqp_channel_t channel, const std::string &doing);
    void reopen(amqp_channel_t channel);

    amqp_connection_state_t state_;
};

}  // namespace queuey_it
