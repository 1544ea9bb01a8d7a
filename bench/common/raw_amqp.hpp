// Plain rabbitmq-c, used the way a careful program without queuey would: the baseline
// side of the benchmarks, and the untimed setup (declare, preload, count, delete) of
// both sides. Every failure throws std::runtime_error.
#pragma once

#include "queue_shape.hpp"

#include <amqp.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

// A message as it goes on the wire: body and properties, with the strings the
// properties point into. Filled once, then neither copied nor moved (pointers inside).
struct RawMessage {
    RawMessage() = default;
    RawMessage(const RawMessage &) = delete;
    RawMessage &operator=(const RawMessage &) = delete;

    std::string body, content_type, message_id, type;
    std::vector<std::string> header_names, header_strings;
    std::vector<amqp_table_entry_t> headers;
    amqp_basic_properties_t properties{};
};

class RawConnection {
public:
    // Connects and logs in (frame max 131072 as queuey, no heartbeats), opens channel 1.
    // Of a list URL,URL,... the first: raw rabbitmq-c has no fail-over.
    explicit RawConnection(const std::string &url);
    ~RawConnection();
    RawConnection(const RawConnection &) = delete;
    RawConnection &operator=(const RawConnection &) = delete;

    // The queue as queuey declares a work queue of that shape: durable, x-max-priority
    // (an octet) on a classic queue unless it is 0, x-queue-type on a quorum one.
    void declare_queue(const std::string &queue, const QueueShape &shape);
    // A hold queue as queuey declares one, without x-expires: durable, its messages
    // dead-lettered to `target` after ttl_ms; on a quorum queue at least once.
    void declare_hold_queue(const std::string &queue, std::int64_t ttl_ms,
                            const std::string &target, const QueueShape &shape);
    void delete_queue(const std::string &queue);
    // Messages ready in the queue (a passive declare).
    std::uint32_t ready_count(const std::string &queue);

    // Publisher confirms: confirm_select once, then publish (mandatory, default exchange)
    // any number, and await_confirms until at most `unconfirmed` publishes so far are not
    // acknowledged (0: every one; more: a sliding window). on_confirmed, when set, is
    // called with each publish's delivery tag (1, 2, ...) as its confirm is read.
    void confirm_select();
    void publish(const std::string &queue, const RawMessage &message);
    void await_confirms(std::size_t unconfirmed = 0);
    std::function<void(std::uint64_t tag)> on_confirmed;

    // Consuming: basic.qos(prefetch) and basic.consume, then one delivery at a time.
    void consume(const std::string &queue, std::uint16_t prefetch);
    std::uint64_t next_delivery_tag();  // waits for the next delivery; drops its content
    void ack(std::uint64_t delivery_tag);
    // Receives `count` deliveries and acks each as it comes, then calls after_each (if set).
    void ack_next(std::size_t count, const std::function<void()> &after_each = {});
    // For a program that polls the socket itself: next_delivery_tag() reads without
    // waiting when frames are buffered (no poll sees those) or the socket is readable.
    int socket_fd() const;
    bool has_buffered_input() const;

private:
    void declare(const std::string &queue, std::vector<amqp_table_entry_t> arguments,
                 const char *doing);
    void check(amqp_rpc_reply_t reply, const char *doing);
    void check(int status, const char *doing);
    void on_confirm(std::uint64_t tag, bool multiple);
    void confirmed(std::uint64_t tag);  // one publish's confirm, read now

    amqp_connection_state_t state_;
    std::uint64_t published_ = 0;              // delivery tags handed out on channel 1
    std::uint64_t confirmed_ = 0;              // every tag up to this one is acknowledged
    std::set<std::uint64_t> confirmed_ahead_;  // single acks beyond confirmed_ + 1
};
