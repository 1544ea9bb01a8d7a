// The deliveries whose content is still arriving. After a basic.deliver RabbitMQ sends its
// content header and then its body frames on the same channel, but other channels' frames
// may come between them. The connection reads frame by frame and hands each content frame
// here, never waiting in the middle of a message: amqp_read_message would, and would copy
// the properties into a pool of their own per message (a cleared 4 KiB page, a clone of
// every header) when a consumer looks at a few headers and the message id once.
#pragma once

#include "delivery_queue.hpp"

#include <amqp.h>

#include <cstddef>
#include <optional>
#include <vector>

namespace queuey {

class ArrivingContents {
public:
    // A basic.deliver: its content follows on delivery.channel. Throws ConnectionLost
    // when a content is still arriving on that channel (the broker broke the protocol).
    void delivered(IncomingDelivery delivery);
    // A basic.return on channel: its content follows, of which only the message id is
    // kept (the body is counted, not copied). Throws as delivered() does.
    void returned(amqp_channel_t channel);
    // A content header or body frame. The delivery once its body is complete (at the
    // header for an empty body); nothing before that, nor for a channel with no delivery
    // arriving. The header's message id, count headers and schedule headers are copied out of it:
    // the frame's memory goes with rabbitmq-c's next buffer release. Throws ConnectionLost when the
    // frames do not add up (a second header, a body before the header or past the size the header
    // announced) or a body finds no memory.
    std::optional<IncomingDelivery> content(const amqp_frame_t &frame);
    // The channel closed: what was arriving there never will.
    void forget(amqp_channel_t channel);
    // The connection was replaced.
    void clear() { arriving_.clear(); }

private:
    struct Arriving {
        IncomingDelivery delivery;
        bool keeps_body = true;  // false: a returned message's
        bool header_read = false;
        std::size_t body_size = 0;  // as the header announced
        std::size_t body_read = 0;
    };
    void arriving(Arriving arriving);
    // One per consuming channel at most, and rarely more than one: a vector.
    std::vector<Arriving> arriving_;
};

}  // namespace queuey
