#include "publish_frames.hpp"

#include "amqp_table.hpp"

#include <amqp_framing.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <variant>

namespace queuey {

namespace {

// AMQP 0-9-1 general frame: type (1 byte), channel (2), payload size (4), payload, end.
constexpr std::size_t frame_header_size = 7;
constexpr char frame_end = static_cast<char>(AMQP_FRAME_END);

char *put_big_endian(char *at, std::uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i, value >>= 8) at[i] = static_cast<char>(value & 0xff);
    return at + bytes;
}

char *put_bytes(char *at, std::string_view text) {
    std::memcpy(at, text.data(), text.size());
    return at + text.size();
}

// A short string: its length in one byte. The caller checked that it fits (fits_short).
char *put_short_string(char *at, std::string_view text) {
    *at++ = static_cast<char>(text.size());
    return put_bytes(at, text);
}

bool fits_short(std::string_view text) { return text.size() <= 255; }

// The headers table: its length, then per header its name, a type byte and the value
// ('i': 32-bit unsigned, 'S': long string), as rabbitmq-c encodes those kinds.
char *put_headers(char *at, const std::vector<AmqpHeader> &headers) {
    char *const length_at = at;
    at += 4;
    for (const AmqpHeader &header : headers) {
        at = put_short_string(at, header.name);
        if (const auto *number = std::get_if<std::uint32_t>(&header.value)) {
            *at++ = static_cast<char>(AMQP_FIELD_KIND_U32);
            at = put_big_endian(at, *number, 4);
        } else {
            const std::string &text = std::get<std::string>(header.value);
            *at++ = static_cast<char>(AMQP_FIELD_KIND_UTF8);
            at = put_bytes(put_big_endian(at, text.size(), 4), text);
        }
    }
    put_big_endian(length_at, static_cast<std::size_t>(at - length_at - 4), 4);
    return at;
}

// Room enough for the method and content header frames, or 0 when a short string in
// them does not fit in 255 bytes.
std::size_t head_frames_size_bound(std::string_view routing_key, const AmqpProperties &props) {
    if (!fits_short(routing_key) || !fits_short(props.content_type) ||
        !fits_short(props.message_id) || !fits_short(props.type))
        return 0;
    std::size_t headers = 4;
    for (const AmqpHeader &header : props.headers) {
        if (!fits_short(header.name)) return 0;
        headers += 1 + header.name.size() + 1 + 4;
        if (const auto *text = std::get_if<std::string>(&header.value)) headers += text->size();
    }
    // Two frames' envelopes; the method's ids, ticket, exchange, bits; the header's class,
    // weight, body size, flags; and each field with its length.
    return 2 * (frame_header_size + 1) + 4 + 2 + 1 + 1 + routing_key.size() + 1 + 2 + 2 + 8 + 2 +
           1 + props.content_type.size() + headers + 1 + 1 + 1 + props.message_id.size() + 1 +
           props.type.size();
}

char *open_frame(char *at, std::uint8_t type, amqp_channel_t channel) {
    *at++ = static_cast<char>(type);
    return put_big_endian(at, channel, 2) + 4;  // the size is filled in by close_frame
}

char *close_frame(char *payload_start, char *at) {
    put_big_endian(payload_start - 4, static_cast<std::size_t>(at - payload_start), 4);
    *at++ = frame_end;
    return at;
}

// basic.publish on the default exchange.
char *put_method_frame(char *at, amqp_channel_t channel, std::string_view routing_key,
                       bool mandatory) {
    char *const payload = open_frame(at, AMQP_FRAME_METHOD, channel);
    at = put_big_endian(payload, AMQP_BASIC_PUBLISH_METHOD, 4);
    at = put_big_endian(at, 0, 2);  // ticket
    at = put_short_string(at, "");  // the default exchange
    at = put_short_string(at, routing_key);
    *at++ = static_cast<char>(mandatory ? 1 : 0);  // bits: mandatory, immediate
    return close_frame(payload, at);
}

// The content header: the body's size and queuey's properties, in the order of their flags.
char *put_header_frame(char *at, amqp_channel_t channel, const AmqpProperties &props,
                       std::size_t body_size) {
    char *const payload = open_frame(at, AMQP_FRAME_HEADER, channel);
    at = put_big_endian(payload, AMQP_BASIC_CLASS, 2);
    at = put_big_endian(at, 0, 2);  // weight
    at = put_big_endian(at, body_size, 8);
    at = put_big_endian(at, queuey_property_flags, 2);
    at = put_short_string(at, props.content_type);
    at = put_headers(at, props.headers);
    *at++ = static_cast<char>(props.delivery_mode);
    *at++ = static_cast<char>(props.priority);
    at = put_short_string(at, props.message_id);
    at = put_short_string(at, props.type);
    return close_frame(payload, at);
}

}  // namespace

bool append_publish_frames(OutgoingBytes &out, amqp_channel_t channel, std::string_view routing_key,
                           bool mandatory, const AmqpProperties &props, const BodyParts &body,
                           std::size_t frame_max) {
    if (frame_max <= frame_header_size + 1) return false;  // no room for a body byte
    // Frames too long for the connection are left to amqp_basic_publish, which says why.
    const std::size_t head_bound = head_frames_size_bound(routing_key, props);
    if (head_bound == 0 || head_bound > frame_max) return false;
    const std::size_t body_per_frame = frame_max - frame_header_size - 1;
    std::string &own = out.own();
    const std::size_t start = own.size();
    own.reserve(start + head_bound + (body.size() / body_per_frame + 1) * (frame_header_size + 1));
    // The two small frames are written in place into room sized once, then cut to size.
    own.resize(start + head_bound);
    char *at = put_method_frame(own.data() + start, channel, routing_key, mandatory);
    at = put_header_frame(at, channel, props, body.size());
    own.resize(static_cast<std::size_t>(at - own.data()));

    // Each body frame's envelope is written here; the body itself is referred to, part by
    // part: a frame may hold the end of one part and the start of the next.
    std::size_t part = 0;         // the part the next body byte is in
    std::size_t part_offset = 0;  // and its offset there
    for (std::size_t left = body.size(); left > 0;) {
        const std::size_t frame_size = std::min(left, body_per_frame);
        char frame[frame_header_size];
        put_big_endian(open_frame(frame, AMQP_FRAME_BODY, channel) - 4, frame_size, 4);
        own.append(frame, frame_header_size);
        for (std::size_t unsent = frame_size; unsent > 0;) {
            const std::string_view piece = body.parts[part].substr(part_offset, unsent);
            if (piece.empty()) {
                ++part;
                part_offset = 0;
                continue;
            }
            out.refer(piece);
            part_offset += piece.size();
            unsent -= piece.size();
        }
        own += frame_end;
        left -= frame_size;
    }
    return true;
}

}  // namespace queuey
