// An envelope's payload: one JSON value in compact form, NUL-terminated (the C API hands
// it out so). Either a string of its own, or a slice of a received body that it shares,
// terminated in place: a megabyte payload is then not copied out of its body, and a
// retry's copy of the envelope shares it too.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace queuey {

class Payload {
public:
    Payload() = default;
    Payload(std::string text) : owned_(std::move(text)) {}
    Payload(const char *text) : owned_(text) {}

    // The text at slice, inside the buffer that owner keeps alive; the byte after it must
    // be a NUL.
    static Payload shared(std::shared_ptr<const char> owner, std::string_view slice) {
        Payload payload;
        payload.owner_ = std::move(owner);
        payload.slice_ = slice;
        return payload;
    }

    std::string_view view() const { return owner_ ? slice_ : std::string_view(owned_); }
    operator std::string_view() const { return view(); }
    const char *c_str() const { return owner_ ? slice_.data() : owned_.c_str(); }
    std::size_t size() const { return view().size(); }

    // Its own string, to write the text into: a shared slice is copied into it first.
    std::string &writable() {
        if (owner_) {
            owned_.assign(slice_);
            owner_.reset();
            slice_ = {};
        }
        return owned_;
    }

    friend bool operator==(const Payload &a, const Payload &b) { return a.view() == b.view(); }
    friend std::ostream &operator<<(std::ostream &out, const Payload &payload) {
        return out << payload.view();
    }

private:
    std::string owned_;
    std::shared_ptr<const char> owner_;  // set: the text is slice_
    std::string_view slice_;
};

}  // namespace queuey
