// rabbitmq-c results turned into queuey errors. Two kinds matter to the I/O thread:
// a lost connection (reconnect) and a channel the broker closed (reopen that channel).
#pragma once

#include "../error.hpp"

#include <amqp.h>

#include <cstdint>
#include <exception>
#include <future>
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

// Inside a catch block: the exception being handled, copied for another thread, text and
// all. Each thread then releases memory of its own: libstdc++ counts the owners of an
// exception and of a std::runtime_error's text where ThreadSanitizer cannot see it, and
// the last owner's release would be reported as a race with the other thread's reads.
// Copies keep the type (ConnectionLost, ChannelClosed, Error); any other exception is
// shared as it is.
std::exception_ptr copy_of_current_exception();

// The value of a future another thread sets; an exception in it is rethrown as a copy
// made while this thread still shares the future's state, so that the thread releasing
// that state last frees an exception this one is done with.
template <typename Result>
Result get_unshared(std::future<Result> &future) {
    try {
        return future.get();
    } catch (...) {
        std::rethrow_exception(copy_of_current_exception());
    }
}

}  // namespace queuey
