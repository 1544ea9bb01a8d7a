// The frames of one basic.publish (method, content header, body), encoded as rabbitmq-c's
// amqp_basic_publish encodes them, so that queuey can write many publishes with one send
// where amqp_basic_publish makes three system calls for each (docs/broker.md, "Publishes
// framed by queuey").
#pragma once

#include <amqp.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace queuey {

// Appends the frames of a publish on the default exchange (routed by routing_key) to out,
// its body cut into frames of at most frame_max bytes. False, with out as it was, when
// rabbitmq-c cannot encode it (a short string over 255 bytes, say): the caller then
// publishes it with amqp_basic_publish, which reports why.
bool append_publish_frames(std::string &out, amqp_channel_t channel, std::string_view routing_key,
                           bool mandatory, const amqp_basic_properties_t &properties,
                           std::string_view body, std::size_t frame_max);

}  // namespace queuey
