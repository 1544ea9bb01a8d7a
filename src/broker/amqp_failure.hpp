// rabbitmq-c results turned into queuey errors. Two kinds matter to the I/O thread:
// a lost connection (reconnect) and a channel the broker closed (reopen that channel).
#pragma once

#include "../error.hpp"

#include <amqp.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace queuey {

// The connection is unusable: socket error, missed heartbeats, connection.close.
class ConnectionLost : public Error {
public:
    ConnectionLost(qy_status status, const std::string &message) : Error(status, "", message) {}
};

// The broker closed one channel (PRECONDITION_FAILED, NOT_FOUND, ...); the connection
// and its other channels live on.
class ChannelClosed : public Error {
public:
    ChannelClosed(qy_status status, amqp_channel_t channel, const std::string &message)
        : Error(status, "", message), channel_(channel) {}
    amqp_channel_t channel() const { return channel_; }

private:
    amqp_channel_t channel_;
};

// The qy_status for an AMQP reply code (406 -> QY_ERR_PRECONDITION_FAILED, ...).
qy_status status_for_reply_code(std::uint16_t reply_code);

// "406 PRECONDITION_FAILED - inequivalent arg 'x-max-priority' ...": the broker's text.
std::string reply_text(std::uint16_t reply_code, amqp_bytes_t text);

[[noreturn]] void throw_library_error(int amqp_status, std::string_view doing);

}  // namespace queuey
