// One rabbitmq-c connection, opened and logged in, with the AMQP operations queuey uses
// as methods that throw ConnectionLost or ChannelClosed. Not thread-safe: only the
// session's holder calls it, the I/O thread that owns it or the caller it lent it to
// (RabbitConnection::borrow_session).
#pragma once

#include "../amqp_properties.hpp"
#include "../backend.hpp"
#include "../topology.hpp"
#include "amqp_url.hpp"
#include "body_parts.hpp"
#include "outgoing_bytes.hpp"
#include "receive_deadline.hpp"

#include <amqp.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

struct SessionOptions {
    std::string connection_name = "queuey";  // shown in the management UI
    std::chrono::seconds heartbeat{30};      // 0 turns heartbeats off
    std::chrono::milliseconds connect_timeout{10000};
    std::chrono::milliseconds rpc_timeout{30000};
    std::string ca_cert_file;  // amqps: the CA to verify the broker with; empty: system CAs
};

class AmqpSession {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr Clock::time_point no_limit = Clock::time_point::max();

    // Connects and logs in. Throws ConnectionLost, or Error with QY_ERR_AUTH,
    // QY_ERR_UNSUPPORTED (amqps without TLS) or QY_ERR_BROKER.
    AmqpSession(const AmqpUrl &url, const SessionOptions &options);
    ~AmqpSession();
    AmqpSession(const AmqpSession &) = delete;
    AmqpSession &operator=(const AmqpSession &) = delete;

    int socket_fd() const;
    // The highest channel number the broker allows (negotiated at login).
    amqp_channel_t channel_max() const;
    // Frames already read from the socket and not yet handed out.
    bool has_buffered_input() const;
    // The next of the frames rabbitmq-c set aside while it waited for an RPC's answer;
    // false when none is left (the socket is not read).
    bool next_queued_frame(amqp_frame_t &frame);
    // A write of about `bytes` goes out now, waiting for nothing: rabbitmq-c's receive
    // deadline is a heartbeat away (no read, no wait before a publish) and the socket's
    // send buffer has room to spare. A caller borrowing the session writes only then, so
    // that a stalled broker never holds it past its own deadline.
    bool writes_at_once(std::size_t bytes) const;
    // Frames are buffered, or the socket has input (or an error) to read now.
    bool input_waiting() const;

    void open_channel(amqp_channel_t channel);
    void confirm_select(amqp_channel_t channel);
    void declare_queue(amqp_channel_t channel, const QueueSpec &spec);
    // Sends queue.declare without waiting: the declare-ok (or a channel.close) comes as a
    // frame like any other.
    void send_declare(amqp_channel_t channel, const QueueSpec &spec);
    void close_channel(amqp_channel_t channel);
    // A passive queue.declare: the queue's counts. A missing queue closes the channel
    // (ChannelClosed with QY_ERR_NOT_FOUND).
    QueueCounts inspect_queue(amqp_channel_t channel, const std::string &queue);
    // basic.get without auto-ack: the next message of queue, or nullopt when it has none.
    std::optional<BrowsedMessage> get(amqp_channel_t channel, const std::string &queue);
    void qos(amqp_channel_t channel, std::uint16_t prefetch);
    void consume(amqp_channel_t channel, const std::string &queue, const std::string &consumer_tag);
    void cancel_consumer(amqp_channel_t channel, const std::string &consumer_tag);
    // A mandatory publish on the default exchange, routed by queue name. On plain TCP its
    // frames are kept to be written by flush_publishes with the publishes around it, as
    // long as the socket has room for them all, its body referred to where it is (it must
    // stay there until flush_publishes returns); a publish that would wait for room is
    // written with those kept, waiting until `until` (flush_publishes). Any other write
    // (an ack, a declare) must come after flush_publishes.
    void publish(amqp_channel_t channel, const std::string &queue, const AmqpProperties &props,
                 const BodyParts &body, Clock::time_point until = no_limit);
    // A mandatory publish on the default exchange routed to queue and, by a BCC header
    // that the broker strips before delivery, to each queue of bcc: one message that every
    // queue holds when it is confirmed (a schedule's fire and its record). Written now;
    // kept publishes go first.
    void publish_with_bcc(amqp_channel_t channel, const std::string &queue,
                          const AmqpProperties &props, const std::vector<std::string> &bcc,
                          std::string_view body);
    // A persistent text message that the broker drops once expiration has passed, written
    // now, not mandatory (a hold index entry: hold_index.hpp). Kept publishes go first.
    void publish_expiring(amqp_channel_t channel, const std::string &queue, std::string_view text,
                          std::chrono::milliseconds expiration);
    // Writes the publishes kept so far, with one sendmsg where the socket takes them whole,
    // waiting for room in a full socket until `until` (a caller holding the session: its
    // call's deadline). False when the time was up first: the bytes left are kept (copied,
    // their bodies may go), and output_left() holds until the I/O thread, which must
    // write them before anything else goes on the socket, calls this without a limit.
    bool flush_publishes(Clock::time_point until = no_limit);
    bool output_left() const { return output_left_; }
    // With multiple, also every earlier unacknowledged delivery of the channel.
    void ack(amqp_channel_t channel, std::uint64_t delivery_tag, bool multiple = false);
    void reject(amqp_channel_t channel, std::uint64_t delivery_tag, bool requeue);
    // Returns every unacknowledged delivery of the channel to its queue (a nack of all).
    void requeue_unacknowledged(amqp_channel_t channel);
    // Answers a channel.close from the broker.
    void confirm_channel_closed(amqp_channel_t channel);
    // Answers a connection.close from the broker; the connection is over (no close of
    // ours follows when the session is destroyed).
    void confirm_connection_closed();

    // The caller's poll saw input on the socket: received now, which the next
    // next_frame() need not look for with a poll of its own.
    void input_seen();
    // The next frame if one can be had without blocking (heartbeats are sent as due).
    bool next_frame(amqp_frame_t &frame);
    // The content (header and body frames) that follows a basic.return or basic.get-ok
    // (a delivery's is assembled by ArrivingContents); the caller frees it with
    // amqp_destroy_message.
    amqp_message_t read_content(amqp_channel_t channel);
    void release_buffers();

private:
    // Runs call (an RPC: it sends a method and waits for the reply) and checks the reply.
    template <typename Call>
    void rpc(amqp_channel_t channel, std::string_view doing, Call call);
    void check_reply(amqp_rpc_reply_t reply, amqp_channel_t channel, std::string_view doing);
    void check_status(int status, std::string_view doing);
    // Throws ConnectionLost when nothing came from the broker for two heartbeats
    // (ReceiveDeadline::before_write, which may wait up to one for input).
    void check_receiving(const std::string &queue);
    // At least what the socket takes now without waiting: room_ if that covers wanted,
    // else measured again (room_to_write).
    std::size_t room_for(std::size_t wanted) const;
    // What the socket takes now without waiting, counting from SIOCOUTQ; SO_SNDBUF is
    // read again when that falls short of wanted.
    std::size_t room_to_write(std::size_t wanted) const;
    // Takes a write of at most `bytes` from room_, or all of it (a write not sized here).
    void spend_room(std::size_t bytes);
    void forget_room() { room_ = 0; }

    // A flushed buffer above this size is given back (a batch of many publishes).
    static constexpr std::size_t max_kept_outgoing = 1 << 20;
    // The most an ack, a reject or a heartbeat that rabbitmq-c sends while reading takes
    // of the socket's room: the frame (21 bytes at most) and a TLS record's own bytes.
    static constexpr std::size_t small_write_most = 64;

    amqp_connection_state_t state_;
    std::string server_;                // the redacted URL, for messages
    bool broken_ = false;               // no connection.close on the way out
    ReceiveDeadline receive_deadline_;  // keeps amqp_basic_publish from waiting forever
    bool input_seen_ = false;           // since the last next_frame()
    mutable int send_buffer_ = 0;       // SO_SNDBUF as last read (writes_at_once)
    bool frames_publishes_ = false;     // plain TCP: publish() frames into outgoing_
    OutgoingBytes outgoing_;            // publishes framed and not yet written
    bool output_left_ = false;          // a flush's time was up with outgoing_ unsent
    // A lower bound of what the socket takes at once: measured, less every byte written
    // since (the peer's acks only add room, and the kernel never shrinks SO_SNDBUF by
    // itself), so that most writes need no SIOCOUTQ of their own. 0: not known.
    mutable std::size_t room_ = 0;
};

}  // namespace queuey
