#include "amqp_session.hpp"

#include "amqp_failure.hpp"
#include "amqp_table.hpp"
#include "browsed_headers.hpp"
#include "connect_probe.hpp"
#include "publish_frames.hpp"
#include "socket_timeouts.hpp"

#include <queuey/version.h>

#include <amqp_tcp_socket.h>
#ifdef QUEUEY_HAVE_TLS
#include <amqp_ssl_socket.h>
#include <openssl/ssl.h>
#endif

#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <cerrno>
#include <cstring>
#include <utility>

namespace queuey {

namespace {

timeval to_timeval(std::chrono::milliseconds duration) {
    const auto ms = duration.count() < 0 ? 0 : duration.count();
    return {static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
}

amqp_table_entry_t string_entry(const char *key, const std::string &value) {
    amqp_table_entry_t entry{};
    entry.key = amqp_cstring_bytes(key);
    entry.value.kind = AMQP_FIELD_KIND_UTF8;
    entry.value.value.bytes = amqp_bytes_of(value);
    return entry;
}

amqp_table_entry_t boolean_entry(const char *key) {
    amqp_table_entry_t entry{};
    entry.key = amqp_cstring_bytes(key);
    entry.value.kind = AMQP_FIELD_KIND_BOOLEAN;
    entry.value.value.boolean = 1;
    return entry;
}

amqp_socket_t *new_socket(amqp_connection_state_t state, const AmqpUrl &url,
                          const SessionOptions &options) {
    if (!url.tls) return amqp_tcp_socket_new(state);
#ifdef QUEUEY_HAVE_TLS
    amqp_socket_t *socket = amqp_ssl_socket_new(state);
    if (socket == nullptr) throw ConnectionLost(QY_ERR_CONNECTION, "cannot create a TLS socket");
    amqp_ssl_socket_set_verify_peer(socket, 1);
    amqp_ssl_socket_set_verify_hostname(socket, 1);
    if (!options.ca_cert_file.empty()) {
        if (amqp_ssl_socket_set_cacert(socket, options.ca_cert_file.c_str()) != AMQP_STATUS_OK)
            throw Error(QY_ERR_INVALID_ARGUMENT, "ca_cert_file",
                        "cannot load CA certificates from " + options.ca_cert_file);
    } else {
        auto *context = static_cast<SSL_CTX *>(amqp_ssl_socket_get_context(socket));
        if (SSL_CTX_set_default_verify_paths(context) != 1)
            throw Error(QY_ERR_CONNECTION, "", "cannot load the system's CA certificates");
    }
    return socket;
#else
    (void)options;
    throw Error(QY_ERR_UNSUPPORTED, "url",
                "amqps:// needs TLS, and this build of queuey has none; refusing to fall back to "
                "plaintext");
#endif
}

}  // namespace

AmqpSession::AmqpSession(const AmqpUrl &url, const SessionOptions &options)
    : state_(amqp_new_connection()), server_(url.redacted()) {
    if (state_ == nullptr) throw Error(QY_ERR_NO_MEMORY, "", "cannot allocate a connection");
    try {
        amqp_socket_t *socket = new_socket(state_, url, options);
        if (socket == nullptr) throw ConnectionLost(QY_ERR_CONNECTION, "cannot create a socket");
        timeval connect_timeout = to_timeval(options.connect_timeout);
        const int opened =
            amqp_socket_open_noblock(socket, url.host.c_str(), url.port, &connect_timeout);
        if (opened != AMQP_STATUS_OK) {
            broken_ = true;
            if (opened == AMQP_STATUS_SOCKET_ERROR)
                if (auto why = connect_failure(url.host, url.port, options.connect_timeout))
                    throw ConnectionLost(QY_ERR_CONNECTION,
                                         "cannot connect to " + server_ + ": " + *why);
            throw_library_error(opened, "cannot connect to " + server_);
        }
        timeval rpc_timeout = to_timeval(options.rpc_timeout);
        amqp_set_handshake_timeout(state_, &connect_timeout);
        amqp_set_rpc_timeout(state_, &rpc_timeout);

        const std::string product = "queuey", version = QY_VERSION_STRING;
        amqp_table_entry_t capability_entries[] = {
            boolean_entry("publisher_confirms"), boolean_entry("basic.nack"),
            boolean_entry("connection.blocked"), boolean_entry("consumer_cancel_notify"),
            boolean_entry("authentication_failure_close")};
        amqp_table_entry_t property_entries[4] = {
            string_entry("connection_name", options.connection_name),
            string_entry("product", product),
            string_entry("version", version),
            {}};
        property_entries[3].key = amqp_cstring_bytes("capabilities");
        property_entries[3].value.kind = AMQP_FIELD_KIND_TABLE;
        property_entries[3].value.value.table = {5, capability_entries};
        const amqp_table_t properties{4, property_entries};

        const auto heartbeat = static_cast<int>(options.heartbeat.count());
        const auto login_started = ReceiveDeadline::Clock::now();
        check_reply(amqp_login_with_properties(state_, url.vhost.c_str(), 0, 131072, heartbeat,
                                               &properties, AMQP_SASL_METHOD_PLAIN,
                                               url.user.c_str(), url.password.c_str()),
                    0, "cannot log in to " + server_);
        // The same fd under TLS. The heartbeat is the one negotiated at login.
        const std::chrono::seconds negotiated(amqp_get_heartbeat(state_));
        apply_socket_timeouts(amqp_get_sockfd(state_),
                              socket_timeouts_for(negotiated, options.rpc_timeout));
        receive_deadline_ = ReceiveDeadline(amqp_get_sockfd(state_), negotiated, login_started);
        frames_publishes_ = !url.tls;  // its own frames go straight to a plain TCP socket only
    } catch (const ConnectionLost &lost) {
        amqp_destroy_connection(state_);
        // qy_client_new promises QY_ERR_CONNECTION for a broker that cannot be reached,
        // also one that accepts TCP and then says nothing within the connect timeout.
        if (lost.status() == QY_ERR_TIMEOUT)
            throw ConnectionLost(QY_ERR_CONNECTION,
                                 std::string(lost.what()) + " (connect timeout " +
                                     std::to_string(options.connect_timeout.count()) + " ms)");
        throw;
    } catch (...) {
        amqp_destroy_connection(state_);
        throw;
    }
}

AmqpSession::~AmqpSession() {
    if (!broken_) amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(state_);
}

int AmqpSession::socket_fd() const { return amqp_get_sockfd(state_); }

amqp_channel_t AmqpSession::channel_max() const {
    const int negotiated = amqp_get_channel_max(state_);
    return negotiated == 0 ? UINT16_MAX : static_cast<amqp_channel_t>(negotiated);  // 0: no limit
}

bool AmqpSession::has_buffered_input() const {
    return amqp_frames_enqueued(state_) || amqp_data_in_buffer(state_);
}

bool AmqpSession::writes_at_once(std::size_t bytes) const {
    const std::size_t wanted = outgoing_.size() + bytes;
    return receive_deadline_.recent() && room_for(wanted) >= wanted;
}

std::size_t AmqpSession::room_for(std::size_t wanted) const {
    if (room_ < wanted) room_ = room_to_write(wanted);
    return room_;
}

void AmqpSession::spend_room(std::size_t bytes) { room_ = bytes < room_ ? room_ - bytes : 0; }

std::size_t AmqpSession::room_to_write(std::size_t wanted) const {
    const int fd = socket_fd();
    int unsent = 0;  // written and not yet acknowledged by the peer
    if (::ioctl(fd, SIOCOUTQ, &unsent) != 0) return 0;
    // A quarter: the data's share of the limit, with room for the kernel's per-packet cost.
    const auto room = [&]() -> std::size_t {
        const auto limit = static_cast<std::size_t>(send_buffer_) / 4;
        return static_cast<std::size_t>(unsent) < limit ? limit - unsent : 0;
    };
    if (room() >= wanted) return room();
    // The kernel grows the limit as the connection goes (TCP autotuning) and never shrinks
    // it by itself: the one known is read again only when it falls short.
    int buffer = 0;  // the kernel's limit, bookkeeping included (socket(7): twice the data)
    socklen_t length = sizeof buffer;
    if (::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, &length) != 0) return 0;
    send_buffer_ = buffer;
    return room();
}

bool AmqpSession::flush_publishes(Clock::time_point until) {
    const std::size_t bytes = outgoing_.size();
    const OutgoingBytes::Sent sent = outgoing_.send_all(socket_fd(), until, max_kept_outgoing);
    output_left_ = sent == OutgoingBytes::Sent::left;
    switch (sent) {
        case OutgoingBytes::Sent::all: spend_room(bytes); return true;
        case OutgoingBytes::Sent::all_after_waiting:
        case OutgoingBytes::Sent::left:
            forget_room();  // the room measured was wrong
            return !output_left_;
        case OutgoingBytes::Sent::failed: break;
    }
    const std::string why = errno != 0 ? std::strerror(errno) : "the socket took nothing";
    broken_ = true;
    throw ConnectionLost(QY_ERR_CONNECTION, "writing publishes to " + server_ + ": " + why);
}

bool AmqpSession::input_waiting() const {
    if (has_buffered_input()) return true;
    pollfd socket{socket_fd(), POLLIN, 0};
    return ::poll(&socket, 1, 0) != 0;  // an error too: the read that follows reports it
}

void AmqpSession::check_status(int status, std::string_view doing) {
    if (status == AMQP_STATUS_OK) return;
    broken_ = true;
    throw_library_error(status, doing);
}

template <typename Call>
void AmqpSession::rpc(amqp_channel_t channel, std::string_view doing, Call call) {
    const auto started = ReceiveDeadline::Clock::now();
    forget_room();
    call();
    check_reply(amqp_get_rpc_reply(state_), channel, doing);
    receive_deadline_.received_after(started);  // the reply came after the request
}

void AmqpSession::check_reply(amqp_rpc_reply_t reply, amqp_channel_t channel,
                              std::string_view doing) {
    switch (reply.reply_type) {
        case AMQP_RESPONSE_NORMAL: return;
        case AMQP_RESPONSE_NONE:
            broken_ = true;
            throw ConnectionLost(QY_ERR_CONNECTION,
                                 std::string(doing) + ": no reply from the broker");
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            broken_ = true;
            throw_library_error(reply.library_error, doing);
        case AMQP_RESPONSE_SERVER_EXCEPTION: break;
    }
    if (reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
        const auto *close = static_cast<amqp_connection_close_t *>(reply.reply.decoded);
        confirm_connection_closed();
        const qy_status status =
            close->reply_code == AMQP_ACCESS_REFUSED ? QY_ERR_AUTH : QY_ERR_CONNECTION;
        throw ConnectionLost(status, std::string(doing) + ": the broker closed the connection: " +
                                         reply_text(close->reply_code, close->reply_text));
    }
    if (reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        const auto *close = static_cast<amqp_channel_close_t *>(reply.reply.decoded);
        const std::string text = reply_text(close->reply_code, close->reply_text);
        const qy_status status = status_for_reply_code(close->reply_code);
        confirm_channel_closed(channel);
        throw ChannelClosed(status, channel, std::string(doing) + ": " + text);
    }
    broken_ = true;
    throw ConnectionLost(QY_ERR_BROKER, std::string(doing) + ": unexpected reply from the broker");
}

void AmqpSession::open_channel(amqp_channel_t channel) {
    rpc(channel, "opening channel " + std::to_string(channel),
        [&] { amqp_channel_open(state_, channel); });
}

void AmqpSession::close_channel(amqp_channel_t channel) {
    forget_room();
    check_reply(amqp_channel_close(state_, channel, AMQP_REPLY_SUCCESS), channel,
                "closing channel " + std::to_string(channel));
}

void AmqpSession::confirm_select(amqp_channel_t channel) {
    rpc(channel, "enabling publisher confirms", [&] { amqp_confirm_select(state_, channel); });
}

void AmqpSession::declare_queue(amqp_channel_t channel, const QueueSpec &spec) {
    const AmqpTable arguments(spec.arguments);
    rpc(channel, "declaring queue '" + spec.name + "'", [&] {
        amqp_queue_declare(state_, channel, amqp_bytes_of(spec.name), 0, spec.durable ? 1 : 0, 0, 0,
                           arguments.table());
    });
}

QueueCounts AmqpSession::inspect_queue(amqp_channel_t channel, const std::string &queue) {
    amqp_queue_declare_ok_t *ok = nullptr;
    rpc(channel, "looking at queue '" + queue + "'", [&] {
        ok = amqp_queue_declare(state_, channel, amqp_bytes_of(queue), /*passive=*/1, 0, 0, 0,
                                amqp_empty_table);
    });
    return {ok->message_count, ok->consumer_count};
}

std::optional<BrowsedMessage> AmqpSession::get(amqp_channel_t channel, const std::string &queue) {
    amqp_rpc_reply_t reply{};
    rpc(channel, "taking a message from queue '" + queue + "'",
        [&] { reply = amqp_basic_get(state_, channel, amqp_bytes_of(queue), /*no_ack=*/0); });
    if (reply.reply.id != AMQP_BASIC_GET_OK_METHOD) return std::nullopt;  // get-empty
    const auto *got = static_cast<amqp_basic_get_ok_t *>(reply.reply.decoded);
    BrowsedMessage message;
    message.tag = got->delivery_tag;
    message.redelivered = got->redelivered != 0;
    amqp_message_t content = read_content(channel);
    const amqp_basic_properties_t &props = content.properties;
    auto text = [](amqp_bytes_t bytes) {
        return std::string(static_cast<const char *>(bytes.bytes), bytes.len);
    };
    if (props._flags & AMQP_BASIC_MESSAGE_ID_FLAG) message.message_id = text(props.message_id);
    if (props._flags & AMQP_BASIC_TYPE_FLAG) message.type = text(props.type);
    if (props._flags & AMQP_BASIC_PRIORITY_FLAG) message.priority = props.priority;
    if (props._flags & AMQP_BASIC_HEADERS_FLAG) message.headers = browsed_headers(props.headers);
    message.body = text(content.body);
    amqp_destroy_message(&content);
    return message;
}

void AmqpSession::send_declare(amqp_channel_t channel, const QueueSpec &spec) {
    const AmqpTable arguments(spec.arguments);
    amqp_queue_declare_t declare{};
    declare.queue = amqp_bytes_of(spec.name);
    declare.durable = spec.durable ? 1 : 0;
    declare.arguments = arguments.table();
    forget_room();
    check_status(amqp_send_method(state_, channel, AMQP_QUEUE_DECLARE_METHOD, &declare),
                 "declaring queue '" + spec.name + "'");
}

void AmqpSession::qos(amqp_channel_t channel, std::uint16_t prefetch) {
    rpc(channel, "setting the prefetch", [&] { amqp_basic_qos(state_, channel, 0, prefetch, 0); });
}

void AmqpSession::consume(amqp_channel_t channel, const std::string &queue,
                          const std::string &consumer_tag) {
    rpc(channel, "consuming from queue '" + queue + "'", [&] {
        amqp_basic_consume(state_, channel, amqp_bytes_of(queue), amqp_bytes_of(consumer_tag), 0, 0,
                           0, amqp_empty_table);
    });
}

void AmqpSession::cancel_consumer(amqp_channel_t channel, const std::string &consumer_tag) {
    rpc(channel, "cancelling consumer " + consumer_tag,
        [&] { amqp_basic_cancel(state_, channel, amqp_bytes_of(consumer_tag)); });
}

void AmqpSession::publish(amqp_channel_t channel, const std::string &queue,
                          const AmqpProperties &props, const BodyParts &body,
                          Clock::time_point until) {
    // What came from the broker lately is checked before the first publish of a flush.
    if (outgoing_.empty()) check_receiving(queue);
    if (frames_publishes_ &&
        append_publish_frames(outgoing_, channel, queue, /*mandatory=*/true, props, body,
                              static_cast<std::size_t>(amqp_get_frame_max(state_)))) {
        // Kept while the socket takes them all at once; else written now, waiting for
        // room as amqp_basic_publish would (its body is not copied on the way).
        if (room_for(outgoing_.size()) < outgoing_.size()) flush_publishes(until);
        return;
    }
    // Under TLS, or one rabbitmq-c reports on: those kept go first.
    if (!outgoing_.empty()) {
        flush_publishes();
        check_receiving(queue);
    }
    forget_room();
    const BasicProperties properties(props);
    // rabbitmq-c takes the body in one piece: one in parts is joined (copied) first.
    std::string joined;
    std::string_view whole = body.parts[0];
    if (whole.size() != body.size()) whole = joined = body.joined();
    const amqp_bytes_t body_bytes{whole.size(), const_cast<char *>(whole.data())};
    const int status =
        amqp_basic_publish(state_, channel, amqp_empty_bytes, amqp_bytes_of(queue),
                           /*mandatory=*/1, /*immediate=*/0, &properties.get(), body_bytes);
    // The message is built only on failure: this runs once per publish.
    if (status != AMQP_STATUS_OK) check_status(status, "publishing to queue '" + queue + "'");
}

void AmqpSession::publish_expiring(amqp_channel_t channel, const std::string &queue,
                                   std::string_view text, std::chrono::milliseconds expiration) {
    if (!outgoing_.empty()) flush_publishes();
    forget_room();
    const std::string expires = std::to_string(expiration.count());
    amqp_basic_properties_t properties{};
    properties._flags =
        AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG | AMQP_BASIC_EXPIRATION_FLAG;
    properties.content_type = amqp_cstring_bytes("text/plain");
    properties.delivery_mode = AMQP_DELIVERY_PERSISTENT;
    properties.expiration = amqp_bytes_of(expires);
    check_status(
        amqp_basic_publish(state_, channel, amqp_empty_bytes, amqp_bytes_of(queue),
                           /*mandatory=*/0, /*immediate=*/0, &properties, amqp_bytes_of(text)),
        "publishing to queue '" + queue + "'");
}

void AmqpSession::publish_with_bcc(amqp_channel_t channel, const std::string &queue,
                                   const AmqpProperties &props, const std::vector<std::string> &bcc,
                                   std::string_view body) {
    if (!outgoing_.empty()) flush_publishes();
    forget_room();
    check_receiving(queue);
    const BasicProperties properties(props, "BCC", bcc);
    check_status(amqp_basic_publish(state_, channel, amqp_empty_bytes, amqp_bytes_of(queue),
                                    /*mandatory=*/1, /*immediate=*/0, &properties.get(),
                                    amqp_bytes_of(body)),
                 "publishing to queue '" + queue + "'");
}

void AmqpSession::check_receiving(const std::string &queue) {
    if (receive_deadline_.recent() || receive_deadline_.before_write()) return;
    broken_ = true;
    throw ConnectionLost(QY_ERR_CONNECTION,
                         "nothing came from " + server_ +
                             " for two heartbeats; the connection is given up before "
                             "writing a publish to queue '" +
                             queue + "'");
}

void AmqpSession::ack(amqp_channel_t channel, std::uint64_t delivery_tag, bool multiple) {
    spend_room(small_write_most);
    check_status(amqp_basic_ack(state_, channel, delivery_tag, multiple ? 1 : 0),
                 "acknowledging a delivery");
}

void AmqpSession::reject(amqp_channel_t channel, std::uint64_t delivery_tag, bool requeue) {
    spend_room(small_write_most);
    check_status(amqp_basic_reject(state_, channel, delivery_tag, requeue ? 1 : 0),
                 "rejecting a delivery");
}

void AmqpSession::requeue_unacknowledged(amqp_channel_t channel) {
    spend_room(small_write_most);
    // Delivery tag 0 with multiple: every outstanding delivery (AMQP 0-9-1, basic.nack).
    check_status(amqp_basic_nack(state_, channel, 0, 1, 1), "returning deliveries to the queue");
}

void AmqpSession::confirm_channel_closed(amqp_channel_t channel) {
    amqp_channel_close_ok_t close_ok{};
    spend_room(small_write_most);
    check_status(amqp_send_method(state_, channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &close_ok),
                 "confirming a channel close");
}

void AmqpSession::confirm_connection_closed() {
    amqp_connection_close_ok_t close_ok{};
    amqp_send_method(state_, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &close_ok);  // best effort
    broken_ = true;
}

void AmqpSession::input_seen() {
    // rabbitmq-c receives it later than now: the deadline kept is never past its own.
    receive_deadline_.received_after(ReceiveDeadline::Clock::now());
    input_seen_ = true;
}

bool AmqpSession::next_frame(amqp_frame_t &frame) {
    if (!std::exchange(input_seen_, false) && !has_buffered_input())
        receive_deadline_.before_read();
    timeval immediately{0, 0};
    spend_room(small_write_most);  // a heartbeat, if one is due
    const int status = amqp_simple_wait_frame_noblock(state_, &frame, &immediately);
    if (status == AMQP_STATUS_TIMEOUT) return false;
    if (status != AMQP_STATUS_OK) check_status(status, "reading from " + server_);
    return true;
}

bool AmqpSession::next_queued_frame(amqp_frame_t &frame) {
    if (!amqp_frames_enqueued(state_)) return false;
    timeval immediately{0, 0};  // a queued frame is handed out before the socket is read
    check_status(amqp_simple_wait_frame_noblock(state_, &frame, &immediately),
                 "reading from " + server_);
    return true;
}

amqp_message_t AmqpSession::read_content(amqp_channel_t channel) {
    amqp_message_t message{};
    spend_room(small_write_most);  // a heartbeat, if one is due
    check_reply(amqp_read_message(state_, channel, &message, 0), channel, "reading a message");
    return message;
}

void AmqpSession::release_buffers() { amqp_maybe_release_buffers(state_); }

}  // namespace queuey
