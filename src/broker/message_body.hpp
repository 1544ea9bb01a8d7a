// A delivery's body in the buffer rabbitmq-c read it into, taken over rather than copied:
// amqp_read_message already copied it out of the socket's buffer, and a second copy of a
// megabyte body costs a fresh allocation (page faults) and a memmove per delivery. Shared
// on request: the decoded envelope's payload may then stay in it (decode_envelope_sharing).
#pragma once

#include <amqp.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

namespace queuey {

class MessageBody {
public:
    MessageBody() = default;
    // Takes over the message's body and leaves it empty: amqp_destroy_message then frees
    // only the rest.
    static MessageBody take_from(amqp_message_t &message) {
        MessageBody body;
        body.owned_.reset(static_cast<char *>(message.body.bytes));
        body.size_ = message.body.len;
        message.body = amqp_empty_bytes;
        return body;
    }

    std::string_view view() const { return {shared_ ? shared_.get() : owned_.get(), size_}; }
    std::string copy() const { return std::string(view()); }
    std::size_t size() const { return size_; }
    // The bytes, from now on shared (which costs an allocation: only for big bodies).
    const std::shared_ptr<char> &share() {
        if (!shared_) shared_ = std::move(owned_);
        return shared_;
    }

private:
    struct Free {  // amqp_bytes_malloc allocates with malloc
        void operator()(char *bytes) const { std::free(bytes); }
    };
    std::unique_ptr<char, Free> owned_;
    std::shared_ptr<char> shared_;  // set by share(): owned_ is then empty
    std::size_t size_ = 0;
};

}  // namespace queuey
