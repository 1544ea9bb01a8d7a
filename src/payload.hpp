// An envelope's payload: one JSON value in compact form, NUL-terminated (the C API hands
// it out so). Either a string of its own, or shared text: a slice of a received body,
// terminated in place, or a long text given to it. A megabyte payload is then not copied
// out of its body, a retry's copy of the envelope shares it, and a publish refers to a
// shared payload where it lies instead of copying it into its body (publish_batch.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace queuey {

// A text this long or longer is shared when given whole (a copy of it costs more than the
// shared pointer's allocation), and referred to by a publish (outgoing_bytes.hpp copies
// shorter pieces anyway).
inline constexpr std::size_t payload_shared_from = 1024;

class Payload {
public:
    Payload() = default;
    Payload(std::string text) : owned_(std::move(text)) { share_if_long(); }
    Payload(const char *text) : Payload(std::string(text)) {}

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
    // Whether copies of it share its text (a copy of one that is not copies the text).
    bool is_shared() const { return owner_ != nullptr; }

    // Its own string, if it is long, becomes shared text: for a payload written through
    // writable() once the writing is done.
    void share_if_long() {
        if (owner_ || owned_.size() < payload_shared_from) return;
        auto text = std::make_shared<const std::string>(std::move(owned_));
        owned_ = std::string();
        slice_ = *text;
        owner_ = std::shared_ptr<const char>(std::move(text), slice_.data());
    }

    // Its own string, to write the text into: shared text is copied into it first (the
    // other holders keep theirs unchanged).
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
    std::shared_ptr<const char> owner_;  // set: the text is slice_, owned_ is empty
    std::string_view slice_;
};

}  // namespace queuey
