// A delivery's body in the one buffer its frames were copied into (arriving_contents.hpp),
// kept rather than copied again: a second copy of a megabyte body costs a fresh
// allocation (page faults) and a memmove per delivery. Shared on request: the decoded
// envelope's payload may then stay in it (decode_envelope_sharing).
#pragma once

#include "body_memory.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

class MessageBody {
public:
    MessageBody() = default;
    // size bytes of its own (a big body's maybe a freed body's: body_memory.hpp), to be
    // filled in through data() before it is viewed or shared; nullopt when malloc finds
    // no memory.
    static std::optional<MessageBody> of_size(std::size_t size) {
        MessageBody body;
        if (size == 0) return body;
        std::size_t capacity = 0;
        char *bytes = body_memory().take(size, capacity);
        if (bytes == nullptr) return std::nullopt;
        body.owned_ = {bytes, GiveBack{capacity}};
        body.size_ = size;
        return body;
    }
    char *data() { return owned_.get(); }

    std::string_view view() const { return {shared_ ? shared_.get() : owned_.get(), size_}; }
    std::string copy() const { return std::string(view()); }
    std::size_t size() const { return size_; }
    // The bytes, from now on shared (which costs an allocation: only for big bodies).
    const std::shared_ptr<char> &share() {
        if (!shared_) shared_ = std::move(owned_);
        return shared_;
    }

private:
    struct GiveBack {  // to body_memory(), which of_size took it from
        std::size_t capacity;
        void operator()(char *bytes) const { body_memory().give(bytes, capacity); }
    };
    std::unique_ptr<char, GiveBack> owned_;
    std::shared_ptr<char> shared_;  // set by share(): owned_ is then empty
    std::size_t size_ = 0;
};

}  // namespace queuey
