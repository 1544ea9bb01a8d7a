// The bytes of the publishes kept to be written together (AmqpSession::flush_publishes):
// their frames' own bytes, and between them the bodies, referred to where they lie. A
// body then goes from the batch to the socket with no copy of its own on the way (the
// kernel's copy is the only one); it must stay where it is until the bytes are sent or
// cleared (write_publishes flushes before it returns, and the batch outlives that).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

class OutgoingBytes {
public:
    // Bytes appended here go after everything added so far.
    std::string &own() { return own_; }
    // bytes go after everything added so far, not copied unless short (under 1 KiB).
    void refer(std::string_view bytes);
    std::size_t size() const { return own_.size() + referred_size_; }
    bool empty() const { return size() == 0; }
    // Forgets every byte; keeps the capacity unless it is over keep_at_most.
    void clear(std::size_t keep_at_most);

    // Sends the bytes from offset `from` on with one sendmsg (as many pieces as one call
    // takes) and returns what sendmsg returned.
    ssize_t send(int fd, std::size_t from, int flags);

private:
    struct Referred {
        std::size_t at;  // goes before own_[at]
        std::string_view bytes;
    };
    std::string own_;
    std::vector<Referred> referred_;
    std::size_t referred_size_ = 0;
    std::vector<iovec> pieces_;  // send()'s, kept for the next
};

}  // namespace queuey
