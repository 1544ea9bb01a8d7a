#include "publish_frames.hpp"

#include <amqp_framing.h>

#include <cstdint>

namespace queuey {

namespace {

// AMQP 0-9-1 general frame: type (1 byte), channel (2), payload size (4), payload, end.
constexpr std::size_t frame_header_size = 7;
constexpr char frame_end = static_cast<char>(AMQP_FRAME_END);

void put_big_endian(std::string &out, std::size_t at, std::uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i, value >>= 8) out[at + i] = static_cast<char>(value & 0xff);
}

// Starts a frame; returns where its payload begins.
std::size_t open_frame(std::string &out, std::uint8_t type, amqp_channel_t channel) {
    const std::size_t start = out.size();
    out.resize(start + frame_header_size);
    out[start] = static_cast<char>(type);
    put_big_endian(out, start + 1, channel, 2);
    return start + frame_header_size;
}

// Ends the frame whose payload began at payload_start and runs to the end of out.
void close_frame(std::string &out, std::size_t payload_start) {
    put_big_endian(out, payload_start - 4, out.size() - payload_start, 4);
    out += frame_end;
}

// Lets encode (a rabbitmq-c encoder: the encoded length, or < 0 when it does not fit)
// write into up to room bytes at the end of out, and keeps what it wrote.
template <typename Encode>
bool append_encoded(std::string &out, std::size_t room, Encode encode) {
    const std::size_t at = out.size();
    out.resize(at + room);
    const int written = encode(amqp_bytes_t{room, out.data() + at});
    if (written < 0) return false;
    out.resize(at + static_cast<std::size_t>(written));
    return true;
}

std::size_t table_size_bound(const amqp_table_t &table) {
    std::size_t size = 4;  // the table's length
    for (int i = 0; i < table.num_entries; ++i) {
        const amqp_table_entry_t &entry = table.entries[i];
        // key, type byte, and the value: at most 8 bytes, or a long string with its length
        size += 1 + entry.key.len + 1 + 8;
        if (entry.value.kind == AMQP_FIELD_KIND_UTF8 || entry.value.kind == AMQP_FIELD_KIND_BYTES)
            size += entry.value.value.bytes.len;
    }
    return size;
}

// Room enough for queuey's properties: short strings, two bytes and the headers table.
std::size_t properties_size_bound(const amqp_basic_properties_t &p) {
    return 16 + p.content_type.len + p.message_id.len + p.type.len + p.correlation_id.len +
           ((p._flags & AMQP_BASIC_HEADERS_FLAG) != 0 ? table_size_bound(p.headers) : 0);
}

}  // namespace

bool append_publish_frames(std::string &out, amqp_channel_t channel, std::string_view routing_key,
                           bool mandatory, const amqp_basic_properties_t &properties,
                           std::string_view body, std::size_t frame_max) {
    const std::size_t rollback = out.size();
    const auto give_up = [&] {
        out.resize(rollback);
        return false;
    };
    if (frame_max <= frame_header_size + 1) return false;  // no room for a body byte
    const std::size_t body_per_frame = frame_max - frame_header_size - 1;
    out.reserve(rollback + 3 * frame_header_size + 32 + routing_key.size() +
                properties_size_bound(properties) + body.size() +
                (body.size() / body_per_frame + 1) * (frame_header_size + 1));

    std::size_t payload = open_frame(out, AMQP_FRAME_METHOD, channel);
    out.resize(payload + 4);
    put_big_endian(out, payload, AMQP_BASIC_PUBLISH_METHOD, 4);
    amqp_basic_publish_t method{};
    method.routing_key = {routing_key.size(), const_cast<char *>(routing_key.data())};
    method.mandatory = mandatory ? 1 : 0;
    if (!append_encoded(out, 8 + routing_key.size(), [&](amqp_bytes_t into) {
            return amqp_encode_method(AMQP_BASIC_PUBLISH_METHOD, &method, into);
        }))
        return give_up();
    close_frame(out, payload);

    payload = open_frame(out, AMQP_FRAME_HEADER, channel);
    out.resize(payload + 12);
    put_big_endian(out, payload, AMQP_BASIC_CLASS, 2);
    put_big_endian(out, payload + 2, 0, 2);  // weight
    put_big_endian(out, payload + 4, body.size(), 8);
    if (!append_encoded(out, properties_size_bound(properties), [&](amqp_bytes_t into) {
            return amqp_encode_properties(AMQP_BASIC_CLASS,
                                          const_cast<amqp_basic_properties_t *>(&properties), into);
        }))
        return give_up();
    close_frame(out, payload);

    for (std::size_t offset = 0; offset < body.size(); offset += body_per_frame) {
        payload = open_frame(out, AMQP_FRAME_BODY, channel);
        out.append(body.substr(offset, body_per_frame));
        close_frame(out, payload);
    }
    return true;
}

}  // namespace queuey
