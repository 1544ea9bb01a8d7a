// The frames of one basic.publish (method, content header, body), the bytes rabbitmq-c's
// amqp_basic_publish sends for the same publish, so that queuey can write many publishes
// with one send where amqp_basic_publish makes three system calls for each (docs/broker.md,
// "Publishes framed by queuey"). Written straight from queuey's properties: no rabbitmq-c
// property structure or table is built for a publish (tests/unit/publish_frames_test.cpp
// holds the two to the same bytes).
#pragma once

#include "../amqp_properties.hpp"
#include "body_parts.hpp"
#include "outgoing_bytes.hpp"

#include <amqp.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace queuey {

// Appends the frames of a publish on the default exchange (routed by routing_key) to out,
// its body cut into frames of at most frame_max bytes and its parts referred to, not
// copied (they must stay put until out is sent). False, with out as it was, when a short string is
// over 255 bytes or the method and header frames do not fit in frame_max: the caller
// then publishes it with amqp_basic_publish, which reports why.
bool append_publish_frames(OutgoingBytes &out, amqp_channel_t channel, std::string_view routing_key,
                           bool mandatory, const AmqpProperties &props, const BodyParts &body,
                           std::size_t frame_max);

}  // namespace queuey
