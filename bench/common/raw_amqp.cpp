#include "raw_amqp.hpp"

#include "cli.hpp"

#include <amqp_tcp_socket.h>

#include <sys/time.h>
#include <algorithm>
#include <stdexcept>

namespace {

constexpr amqp_channel_t channel = 1;
constexpr int frame_max = 131072;  // what queuey asks for
const timeval wait_limit{30, 0};   // a broker that says nothing this long is stuck

amqp_bytes_t bytes_of(const std::string &text) {
    return {text.size(), const_cast<char *>(text.data())};
}

[[noreturn]] void fail(const std::string &doing, const std::string &why) {
    throw std::runtime_error("raw rabbitmq-c: " + doing + ": " + why);
}

}  // namespace

RawConnection::RawConnection(const std::string &url) : state_(amqp_new_connection()) {
    const auto urls = FlagReader::split(url);
    if (urls.empty()) fail("parsing the URL", "no URL");
    std::string buffer = urls.front();  // amqp_parse_url cuts it into the pieces it points to
    amqp_connection_info info;
    if (amqp_parse_url(buffer.data(), &info) != AMQP_STATUS_OK) fail("parsing the URL", url);
    amqp_socket_t *socket = amqp_tcp_socket_new(state_);
    if (socket == nullptr) fail("connecting", "cannot create a socket");
    check(amqp_socket_open(socket, info.host, info.port), "connecting");
    check(amqp_login(state_, info.vhost, 0, frame_max, /*heartbeat=*/0, AMQP_SASL_METHOD_PLAIN,
                     info.user, info.password),
          "logging in");
    amqp_channel_open(state_, channel);
    check(amqp_get_rpc_reply(state_), "opening a channel");
}

RawConnection::~RawConnection() {
    amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(state_);
}

void RawConnection::check(amqp_rpc_reply_t reply, const char *doing) {
    if (reply.reply_type == AMQP_RESPONSE_NORMAL) return;
    if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION)
        fail(doing, amqp_error_string2(reply.library_error));
    if (reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION &&
        reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        const auto *close = static_cast<amqp_channel_close_t *>(reply.reply.decoded);
        fail(doing,
             std::string(static_cast<char *>(close->reply_text.bytes), close->reply_text.len));
    }
    fail(doing, "unexpected reply from the broker");
}

void RawConnection::check(int status, const char *doing) {
    if (status != AMQP_STATUS_OK) fail(doing, amqp_error_string2(status));
}

namespace {

amqp_table_entry_t string_argument(const char *key, amqp_bytes_t value) {
    amqp_table_entry_t entry{};
    entry.key = amqp_cstring_bytes(key);
    entry.value.kind = AMQP_FIELD_KIND_UTF8;
    entry.value.value.bytes = value;
    return entry;
}

// What every queue of the shape is declared with, whatever its role.
std::vector<amqp_table_entry_t> type_arguments(const QueueShape &shape) {
    if (!shape.quorum) return {};
    return {string_argument("x-queue-type", amqp_cstring_bytes("quorum"))};
}

}  // namespace

void RawConnection::declare(const std::string &queue, std::vector<amqp_table_entry_t> arguments,
                            const char *doing) {
    const amqp_table_t table{static_cast<int>(arguments.size()), arguments.data()};
    amqp_queue_declare(state_, channel, bytes_of(queue), /*passive=*/0, /*durable=*/1,
                       /*exclusive=*/0, /*auto_delete=*/0, table);
    check(amqp_get_rpc_reply(state_), doing);
}

void RawConnection::declare_queue(const std::string &queue, const QueueShape &shape) {
    std::vector<amqp_table_entry_t> arguments = type_arguments(shape);
    if (!shape.quorum && shape.max_priority != 0) {
        amqp_table_entry_t &priority = arguments.emplace_back();
        priority.key = amqp_cstring_bytes("x-max-priority");
        priority.value.kind = AMQP_FIELD_KIND_U8;
        priority.value.value.u8 = shape.max_priority;
    }
    declare(queue, std::move(arguments), "declaring the queue");
}

void RawConnection::declare_hold_queue(const std::string &queue, std::int64_t ttl_ms,
                                       const std::string &target, const QueueShape &shape) {
    std::vector<amqp_table_entry_t> arguments = type_arguments(shape);
    amqp_table_entry_t &ttl = arguments.emplace_back();
    ttl.key = amqp_cstring_bytes("x-message-ttl");
    ttl.value.kind = AMQP_FIELD_KIND_I64;
    ttl.value.value.i64 = ttl_ms;
    arguments.push_back(string_argument("x-dead-letter-exchange", amqp_empty_bytes));
    arguments.push_back(string_argument("x-dead-letter-routing-key", bytes_of(target)));
    if (shape.quorum) {
        arguments.push_back(
            string_argument("x-dead-letter-strategy", amqp_cstring_bytes("at-least-once")));
        arguments.push_back(string_argument("x-overflow", amqp_cstring_bytes("reject-publish")));
    }
    declare(queue, std::move(arguments), "declaring a hold queue");
}

void RawConnection::delete_queue(const std::string &queue) {
    amqp_queue_delete(state_, channel, bytes_of(queue), 0, 0);
    check(amqp_get_rpc_reply(state_), "deleting the queue");
}

std::uint32_t RawConnection::ready_count(const std::string &queue) {
    const auto *ok = amqp_queue_declare(state_, channel, bytes_of(queue), /*passive=*/1, 0, 0, 0,
                                        amqp_empty_table);
    check(amqp_get_rpc_reply(state_), "counting the queue's messages");
    return ok->message_count;
}

void RawConnection::confirm_select() {
    amqp_confirm_select(state_, channel);
    check(amqp_get_rpc_reply(state_), "enabling publisher confirms");
}

void RawConnection::publish(const std::string &queue, const RawMessage &message) {
    check(amqp_basic_publish(state_, channel, amqp_empty_bytes, bytes_of(queue), /*mandatory=*/1,
                             /*immediate=*/0, &message.properties, bytes_of(message.body)),
          "publishing");
    ++published_;
}

void RawConnection::confirmed(std::uint64_t tag) {
    if (on_confirmed) on_confirmed(tag);
}

void RawConnection::on_confirm(std::uint64_t tag, bool multiple) {
    if (multiple) {
        for (std::uint64_t each = confirmed_ + 1; each <= tag; ++each)
            if (!confirmed_ahead_.count(each)) confirmed(each);
        if (tag > confirmed_) confirmed_ = tag;
        confirmed_ahead_.erase(confirmed_ahead_.begin(), confirmed_ahead_.upper_bound(tag));
    } else if (tag > confirmed_ && confirmed_ahead_.insert(tag).second) {
        confirmed(tag);
    }
    while (!confirmed_ahead_.empty() && *confirmed_ahead_.begin() <= confirmed_ + 1) {
        confirmed_ = std::max(confirmed_, *confirmed_ahead_.begin());
        confirmed_ahead_.erase(confirmed_ahead_.begin());
    }
}

void RawConnection::await_confirms(std::size_t unconfirmed) {
    while (published_ - confirmed_ - confirmed_ahead_.size() > unconfirmed) {
        amqp_frame_t frame;
        check(amqp_simple_wait_frame_noblock(state_, &frame, &wait_limit), "waiting for confirms");
        if (frame.frame_type != AMQP_FRAME_METHOD) continue;
        switch (frame.payload.method.id) {
            case AMQP_BASIC_ACK_METHOD: {
                const auto *ack = static_cast<amqp_basic_ack_t *>(frame.payload.method.decoded);
                on_confirm(ack->delivery_tag, ack->multiple != 0);
                break;
            }
            case AMQP_BASIC_NACK_METHOD:
                fail("waiting for confirms", "the broker nacked a publish");
            case AMQP_BASIC_RETURN_METHOD:
                fail("waiting for confirms", "the broker returned a publish");
            default: fail("waiting for confirms", "unexpected method from the broker");
        }
    }
    amqp_maybe_release_buffers(state_);
}

void RawConnection::consume(const std::string &queue, std::uint16_t prefetch) {
    amqp_basic_qos(state_, channel, 0, prefetch, 0);
    check(amqp_get_rpc_reply(state_), "setting the prefetch");
    amqp_basic_consume(state_, channel, bytes_of(queue), amqp_empty_bytes, /*no_local=*/0,
                       /*no_ack=*/0, /*exclusive=*/0, amqp_empty_table);
    check(amqp_get_rpc_reply(state_), "consuming");
}

std::uint64_t RawConnection::next_delivery_tag() {
    amqp_maybe_release_buffers(state_);
    amqp_envelope_t envelope;
    check(amqp_consume_message(state_, &envelope, &wait_limit, 0), "receiving a delivery");
    const std::uint64_t tag = envelope.delivery_tag;
    amqp_destroy_envelope(&envelope);
    return tag;
}

void RawConnection::ack(std::uint64_t delivery_tag) {
    check(amqp_basic_ack(state_, channel, delivery_tag, /*multiple=*/0), "acknowledging");
}

int RawConnection::socket_fd() const { return amqp_get_sockfd(state_); }

bool RawConnection::has_buffered_input() const {
    return amqp_frames_enqueued(state_) || amqp_data_in_buffer(state_);
}

void RawConnection::ack_next(std::size_t count, const std::function<void()> &after_each) {
    for (std::size_t i = 0; i < count; ++i) {
        ack(next_delivery_tag());
        if (after_each) after_each();
    }
}
