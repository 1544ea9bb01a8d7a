#include "raw_amqp.hpp"

#include <amqp_tcp_socket.h>

#include <stdexcept>
#include <thread>

namespace queuey_it {

namespace {

constexpr amqp_channel_t rpc_channel = 1;
constexpr amqp_channel_t publish_channel = 2;

std::string text_of(amqp_bytes_t bytes) {
    return bytes.len == 0 ? std::string()
                          : std::string(static_cast<const char *>(bytes.bytes), bytes.len);
}

amqp_bytes_t bytes_of(std::string_view text) {
    return {text.size(), const_cast<char *>(text.data())};
}

RawHeader header_of(const amqp_table_entry_t &entry) {
    RawHeader header;
    header.name = text_of(entry.key);
    header.kind = entry.value.kind;
    const auto &v = entry.value.value;
    switch (entry.value.kind) {
        case AMQP_FIELD_KIND_UTF8:
        case AMQP_FIELD_KIND_BYTES: header.text = text_of(v.bytes); break;
        case AMQP_FIELD_KIND_BOOLEAN: header.integer = v.boolean; break;
        case AMQP_FIELD_KIND_I8: header.integer = v.i8; break;
        case AMQP_FIELD_KIND_U8: header.integer = v.u8; break;
        case AMQP_FIELD_KIND_I16: header.integer = v.i16; break;
        case AMQP_FIELD_KIND_U16: header.integer = v.u16; break;
        case AMQP_FIELD_KIND_I32: header.integer = v.i32; break;
        case AMQP_FIELD_KIND_U32: header.integer = v.u32; break;
        case AMQP_FIELD_KIND_I64: header.integer = v.i64; break;
        case AMQP_FIELD_KIND_U64: header.integer = static_cast<std::int64_t>(v.u64); break;
        case AMQP_FIELD_KIND_TIMESTAMP: header.integer = static_cast<std::int64_t>(v.u64); break;
        default: break;  // tables, arrays, floats: the kind is what the tests look at
    }
    return header;
}

std::string reply_description(const amqp_rpc_reply_t &reply) {
    switch (reply.reply_type) {
        case AMQP_RESPONSE_NORMAL: return "ok";
        case AMQP_RESPONSE_NONE: return "no reply";
        case AMQP_RESPONSE_LIBRARY_EXCEPTION: return amqp_error_string2(reply.library_error);
        case AMQP_RESPONSE_SERVER_EXCEPTION: break;
    }
    if (reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        const auto *close = static_cast<amqp_channel_close_t *>(reply.reply.decoded);
        return "channel closed: " + std::to_string(close->reply_code) + " " +
               text_of(close->reply_text);
    }
    if (reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
        const auto *close = static_cast<amqp_connection_close_t *>(reply.reply.decoded);
        return "connection closed: " + std::to_string(close->reply_code) + " " +
               text_of(close->reply_text);
    }
    return "unexpected reply";
}

bool is_not_found(const amqp_rpc_reply_t &reply) {
    if (reply.reply_type != AMQP_RESPONSE_SERVER_EXCEPTION ||
        reply.reply.id != AMQP_CHANNEL_CLOSE_METHOD)
        return false;
    return static_cast<amqp_channel_close_t *>(reply.reply.decoded)->reply_code == AMQP_NOT_FOUND;
}

}  // namespace

const RawHeader *RawMessage::header(std::string_view name) const {
    for (const RawHeader &h : headers)
        if (h.name == name) return &h;
    return nullptr;
}

RawAmqp::RawAmqp(const BrokerEndpoint &broker) : state_(amqp_new_connection()) {
    amqp_socket_t *socket = amqp_tcp_socket_new(state_);
    timeval timeout{10, 0};
    if (socket == nullptr || amqp_socket_open_noblock(socket, broker.host.c_str(), broker.port,
                                                      &timeout) != AMQP_STATUS_OK) {
        amqp_destroy_connection(state_);
        throw std::runtime_error("raw AMQP: cannot connect to " + broker.host + ":" +
                                 std::to_string(broker.port));
    }
    amqp_set_rpc_timeout(state_, &timeout);
    const amqp_rpc_reply_t login =
        amqp_login(state_, broker.vhost.c_str(), 0, 131072, 0, AMQP_SASL_METHOD_PLAIN,
                   broker.user.c_str(), broker.password.c_str());
    if (login.reply_type != AMQP_RESPONSE_NORMAL) {
        const std::string why = reply_description(login);
        amqp_destroy_connection(state_);
        throw std::runtime_error("raw AMQP: cannot log in: " + why);
    }
    try {
        reopen(rpc_channel);
        reopen(publish_channel);
        amqp_confirm_select(state_, publish_channel);
        check(amqp_get_rpc_reply(state_), publish_channel, "confirm.select");
    } catch (...) {
        amqp_destroy_connection(state_);
        throw;
    }
}

RawAmqp::~RawAmqp() {
    amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(state_);
}

void RawAmqp::reopen(amqp_channel_t channel) {
    amqp_channel_open(state_, channel);
    const amqp_rpc_reply_t reply = amqp_get_rpc_reply(state_);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL)
        throw std::runtime_error("raw AMQP: cannot open channel " + std::to_string(channel) + ": " +
                                 reply_description(reply));
}

void RawAmqp::check(amqp_rpc_reply_t reply, amqp_channel_t channel, const std::string &doing) {
    if (reply.reply_type == AMQP_RESPONSE_NORMAL) return;
    const std::string why = reply_description(reply);
    if (reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION &&
        reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        amqp_channel_close_ok_t close_ok{};
        amqp_send_method(state_, channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &close_ok);
        reopen(channel);
        if (channel == publish_channel) {
            amqp_confirm_select(state_, publish_channel);
            amqp_get_rpc_reply(state_);
        }
    }
    throw std::runtime_error("raw AMQP: " + doing + ": " + why);
}

std::optional<RawMessage> RawAmqp::get(const std::string &queue) {
    std::uint64_t delivery_tag = 0;
    return get_from(queue, true, delivery_tag);
}

std::optional<RawMessage> RawAmqp::get_unsettled(const std::string &queue,
                                                 std::uint64_t &delivery_tag) {
    return get_from(queue, false, delivery_tag);
}

void RawAmqp::return_message(std::uint64_t delivery_tag, Return how) {
    const int status = how == Return::reject
                           ? amqp_basic_reject(state_, rpc_channel, delivery_tag, /*requeue=*/1)
                           : amqp_basic_nack(state_, rpc_channel, delivery_tag, /*multiple=*/0,
                                             /*requeue=*/1);
    if (status != AMQP_STATUS_OK)
        throw std::runtime_error(std::string("raw AMQP: returning a message: ") +
                                 amqp_error_string2(status));
}

void RawAmqp::reopen_get_channel() {
    check(amqp_channel_close(state_, rpc_channel, AMQP_REPLY_SUCCESS), rpc_channel,
          "closing channel " + std::to_string(rpc_channel));
    reopen(rpc_channel);
}

std::string RawAmqp::server_version() const {
    const amqp_table_t *properties = amqp_get_server_properties(state_);
    for (int i = 0; properties != nullptr && i < properties->num_entries; ++i) {
        const amqp_table_entry_t &entry = properties->entries[i];
        if (text_of(entry.key) == "version" && entry.value.kind == AMQP_FIELD_KIND_UTF8)
            return text_of(entry.value.value.bytes);
    }
    return "";
}

std::optional<RawMessage> RawAmqp::get_from(const std::string &queue, bool auto_ack,
                                            std::uint64_t &delivery_tag) {
    const amqp_rpc_reply_t reply =
        amqp_basic_get(state_, rpc_channel, bytes_of(queue), auto_ack ? 1 : 0);
    check(reply, rpc_channel, "basic.get from '" + queue + "'");
    if (reply.reply.id == AMQP_BASIC_GET_EMPTY_METHOD) return std::nullopt;
    const auto *ok = static_cast<amqp_basic_get_ok_t *>(reply.reply.decoded);
    RawMessage result;
    result.redelivered = ok->redelivered != 0;
    delivery_tag = ok->delivery_tag;

    amqp_message_t message{};
    check(amqp_read_message(state_, rpc_channel, &message, 0), rpc_channel, "reading a message");
    const amqp_basic_properties_t &p = message.properties;
    result.body = text_of(message.body);
    if (p._flags & AMQP_BASIC_CONTENT_TYPE_FLAG) result.content_type = text_of(p.content_type);
    if (p._flags & AMQP_BASIC_DELIVERY_MODE_FLAG) result.delivery_mode = p.delivery_mode;
    if (p._flags & AMQP_BASIC_MESSAGE_ID_FLAG) result.message_id = text_of(p.message_id);
    if (p._flags & AMQP_BASIC_TYPE_FLAG) result.type = text_of(p.type);
    if (p._flags & AMQP_BASIC_PRIORITY_FLAG) result.priority = p.priority;
    if (p._flags & AMQP_BASIC_EXPIRATION_FLAG)
        result.expiration = text_of(p.expiration);
    result.has_headers = (p._flags & AMQP_BASIC_HEADERS_FLAG) != 0;
    if (result.has_headers)
        for (int i = 0; i < p.headers.num_entries; ++i)
            result.headers.push_back(header_of(p.headers.entries[i]));
    amqp_destroy_message(&message);
    amqp_maybe_release_buffers(state_);
    return result;
}

std::vector<RawMessage> RawAmqp::drain(const std::string &queue) {
    std::vector<RawMessage> messages;
    while (auto message = get(queue)) messages.push_back(std::move(*message));
    return messages;
}

bool RawAmqp::publish(const std::string &queue, std::string_view body,
                      const std::vector<RawHeader> &headers, const std::string &message_id) {
    amqp_basic_properties_t props{};
    props._flags = AMQP_BASIC_DELIVERY_MODE_FLAG;
    props.delivery_mode = 2;
    if (!message_id.empty()) {
        props._flags |= AMQP_BASIC_MESSAGE_ID_FLAG;
        props.message_id = bytes_of(message_id);
    }
    std::vector<amqp_table_entry_t> entries;
    for (const RawHeader &header : headers) {
        amqp_table_entry_t entry{};
        entry.key = bytes_of(header.name);
        entry.value.kind = header.kind;
        switch (header.kind) {
            case AMQP_FIELD_KIND_UTF8: entry.value.value.bytes = bytes_of(header.text); break;
            case AMQP_FIELD_KIND_I32:
                entry.value.value.i32 = static_cast<std::int32_t>(header.integer);
                break;
            case AMQP_FIELD_KIND_U32:
                entry.value.value.u32 = static_cast<std::uint32_t>(header.integer);
                break;
            case AMQP_FIELD_KIND_I64: entry.value.value.i64 = header.integer; break;
            default: throw std::runtime_error("raw AMQP: publish: header kind not supported here");
        }
        entries.push_back(entry);
    }
    if (!entries.empty()) {
        props._flags |= AMQP_BASIC_HEADERS_FLAG;
        props.headers = {static_cast<int>(entries.size()), entries.data()};
    }
    const int status = amqp_basic_publish(state_, publish_channel, amqp_empty_bytes,
                                          bytes_of(queue), 0, 0, &props, bytes_of(body));
    if (status != AMQP_STATUS_OK)
        throw std::runtime_error(std::string("raw AMQP: publish: ") + amqp_error_string2(status));
    while (true) {
        amqp_frame_t frame;
        timeval timeout{10, 0};
        const int waited = amqp_simple_wait_frame_noblock(state_, &frame, &timeout);
        if (waited != AMQP_STATUS_OK)
            throw std::runtime_error(std::string("raw AMQP: waiting for a confirm: ") +
                                     amqp_error_string2(waited));
        if (frame.frame_type != AMQP_FRAME_METHOD || frame.channel != publish_channel) continue;
        if (frame.payload.method.id == AMQP_BASIC_ACK_METHOD) return true;
        if (frame.payload.method.id == AMQP_BASIC_NACK_METHOD) return false;
        if (frame.payload.method.id == AMQP_CHANNEL_CLOSE_METHOD)
            throw std::runtime_error("raw AMQP: the broker closed the publishing channel");
    }
}

std::optional<std::uint32_t> RawAmqp::message_count(const std::string &queue) {
    const amqp_queue_declare_ok_t *ok = amqp_queue_declare(
        state_, rpc_channel, bytes_of(queue), /*passive=*/1, 0, 0, 0, amqp_empty_table);
    const amqp_rpc_reply_t reply = amqp_get_rpc_reply(state_);
    if (ok == nullptr && is_not_found(reply)) {
        try {
            check(reply, rpc_channel, "");
        } catch (const std::runtime_error &) {}
        return std::nullopt;
    }
    check(reply, rpc_channel, "passive declare of '" + queue + "'");
    return ok->message_count;
}

std::optional<std::uint32_t> RawAmqp::wait_for_count(const std::string &queue, std::uint32_t count,
                                                     std::chrono::milliseconds timeout) {
    std::optional<std::uint32_t> seen;
    eventually(
        [&] {
            seen = message_count(queue);
            return seen == count;
        },
        timeout);
    return seen;
}

void RawAmqp::declare(const std::string &queue, bool durable,
                      const std::vector<RawArgument> &arguments, bool exclusive) {
    std::vector<amqp_table_entry_t> entries;
    for (const RawArgument &argument : arguments) {
        amqp_table_entry_t entry{};
        entry.key = bytes_of(argument.name);
        if (const auto *number = std::get_if<std::int64_t>(&argument.value)) {
            entry.value.kind = AMQP_FIELD_KIND_I64;
            entry.value.value.i64 = *number;
        } else {
            entry.value.kind = AMQP_FIELD_KIND_UTF8;
            entry.value.value.bytes = bytes_of(std::get<std::string>(argument.value));
        }
        entries.push_back(entry);
    }
    const amqp_table_t table{static_cast<int>(entries.size()),
                             entries.empty() ? nullptr : entries.data()};
    amqp_queue_declare(state_, rpc_channel, bytes_of(queue), 0, durable ? 1 : 0, exclusive ? 1 : 0,
                       0, table);
    check(amqp_get_rpc_reply(state_), rpc_channel, "declaring '" + queue + "'");
}

void RawAmqp::delete_queue(const std::string &queue) {
    amqp_queue_delete(state_, rpc_channel, bytes_of(queue), 0, 0);
    check(amqp_get_rpc_reply(state_), rpc_channel, "deleting '" + queue + "'");
}

}  // namespace queuey_it
