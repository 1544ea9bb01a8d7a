// A delivery's body in the one buffer its frames were copied into (arriving_contents.hpp),
// kept rather than copied again: a second copy of a megabyte body costs a fresh
// allocation (page faults) and a memmove per delivery. Shared on request: the decoded
// envelope's payload may then stay in it (decode_envelope_sharing).
#pragma once

#include "../plain_runs.hpp"
#include "body_memory.hpp"

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

class MessageBody {
public:
    // A body this long or longer notes its plain runs as it is filled: below it, its
    // decoder's scan costs little and finds the bytes still in the cache.
    static constexpr std::size_t plain_runs_from = 16 * 1024;

    MessageBody() = default;
    // size bytes of its own (a big body's maybe a freed body's: body_memory.hpp), to be
    // filled in through fill() before it is viewed or shared; nullopt when malloc finds
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
    // Copies size bytes from `from` into it at offset; a big body also notes its plain
    // runs, for its decoder (plain_runs.hpp).
    void fill(std::size_t offset, const char *from, std::size_t size) {
        if (size_ >= plain_runs_from)
            plain_runs_.copy(owned_.get(), offset, from, size);
        else if (size != 0)  // memcpy takes no null pointer, even for no bytes
            std::memcpy(owned_.get() + offset, from, size);
    }
    const PlainRuns &plain_runs() const { return plain_runs_; }

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
    PlainRuns plain_runs_;
};

}  // namespace queuey
