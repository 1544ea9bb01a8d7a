#include "arriving_contents.hpp"

#include "../amqp_properties.hpp"
#include "amqp_failure.hpp"
#include "amqp_table.hpp"

#include <algorithm>
#include <string>

namespace queuey {

namespace {

// A count header (x-lost-runs, x-delivery-count): an integer within 32 bits; anything
// else counts as none.
std::uint32_t count_of(std::optional<std::int64_t> header) {
    if (!header || *header < 0) return 0;
    return static_cast<std::uint32_t>(std::min<std::int64_t>(*header, UINT32_MAX));
}

ConnectionLost broken_content(amqp_channel_t channel, const std::string &what) {
    return ConnectionLost(QY_ERR_BROKER,
                          "reading a message on channel " + std::to_string(channel) + ": " + what);
}

// The header's part of a delivery: what a consumer reads of its properties, and its body
// sized when kept. False when no memory is found for the body.
bool read_header(const amqp_frame_t &frame, IncomingDelivery &delivery, bool keeps_body) {
    const auto &properties =
        *static_cast<const amqp_basic_properties_t *>(frame.payload.properties.decoded);
    if (properties._flags & AMQP_BASIC_MESSAGE_ID_FLAG)
        delivery.message_id.assign(static_cast<const char *>(properties.message_id.bytes),
                                   properties.message_id.len);
    if (!keeps_body) return true;
    if (properties._flags & AMQP_BASIC_HEADERS_FLAG) {
        delivery.lost_runs = count_of(integer_field(properties.headers, lost_runs_header));
        delivery.returns = count_of(integer_field(properties.headers, delivery_count_header));
        const auto schedule = text_field(properties.headers, schedule_header);
        const auto fire_time = text_field(properties.headers, fire_time_header);
        if (schedule && fire_time)
            delivery.fire = ScheduledFire{std::string(*schedule), std::string(*fire_time)};
    }
    std::optional<MessageBody> body = MessageBody::of_size(frame.payload.properties.body_size);
    if (!body) return false;
    delivery.body = std::move(*body);
    return true;
}

}  // namespace

void ArrivingContents::delivered(IncomingDelivery delivery) { arriving({std::move(delivery)}); }

void ArrivingContents::returned(amqp_channel_t channel) {
    IncomingDelivery returned;
    returned.channel = channel;
    arriving({std::move(returned), false});
}

void ArrivingContents::arriving(Arriving arriving) {
    const amqp_channel_t channel = arriving.delivery.channel;
    if (std::any_of(arriving_.begin(), arriving_.end(),
                    [&](const Arriving &a) { return a.delivery.channel == channel; }))
        throw broken_content(channel, "a message came before the previous one's content");
    arriving_.push_back(std::move(arriving));
}

std::optional<IncomingDelivery> ArrivingContents::content(const amqp_frame_t &frame) {
    const auto it = std::find_if(arriving_.begin(), arriving_.end(), [&](const Arriving &a) {
        return a.delivery.channel == frame.channel;
    });
    if (it == arriving_.end()) return std::nullopt;
    if (frame.frame_type == AMQP_FRAME_HEADER) {
        if (it->header_read) throw broken_content(frame.channel, "a second content header");
        if (!read_header(frame, it->delivery, it->keeps_body))
            throw broken_content(frame.channel,
                                 "no memory for a body of " +
                                     std::to_string(frame.payload.properties.body_size) + " bytes");
        it->header_read = true;
        it->body_size = frame.payload.properties.body_size;
    } else {
        if (!it->header_read) throw broken_content(frame.channel, "a body before its header");
        const amqp_bytes_t &fragment = frame.payload.body_fragment;
        if (fragment.len > it->body_size - it->body_read)
            throw broken_content(frame.channel, "more body than the " +
                                                    std::to_string(it->body_size) +
                                                    " bytes its header announced");
        if (it->keeps_body)
            it->delivery.body.fill(it->body_read, static_cast<const char *>(fragment.bytes),
                                   fragment.len);
        it->body_read += fragment.len;
    }
    if (it->body_read < it->body_size) return std::nullopt;
    IncomingDelivery complete = std::move(it->delivery);
    arriving_.erase(it);
    return complete;
}

void ArrivingContents::forget(amqp_channel_t channel) {
    std::erase_if(arriving_, [&](const Arriving &a) { return a.delivery.channel == channel; });
}

}  // namespace queuey
