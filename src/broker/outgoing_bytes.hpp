// The bytes of the publishes kept to be written together (AmqpSession::flush_publishes):
// their frames' own bytes, and between them the bodies, referred to where they lie. A
// body then goes from the batch to the socket with no copy of its own on the way (the
// kernel's copy is the only one); it must stay where it is until the bytes are sent,
// cleared, or copied by keep_from (write_publishes flushes before it returns, and the
// batch outlives that; a caller whose deadline passed first leaves a copy of what is
// left to the I/O thread).
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <chrono>
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

    enum class Sent { all, all_after_waiting, left, failed };
    // Sends every byte on the non-blocking socket fd, waiting in poll for room until
    // `until`. all: cleared (keeping capacity up to keep_at_most); all_after_waiting: the
    // same, but the socket was full on the way. left: the time was up first; the bytes not
    // sent are kept, copied (keep_from). failed: errno says why (0: the socket took
    // nothing); cleared.
    Sent send_all(int fd, std::chrono::steady_clock::time_point until, std::size_t keep_at_most);
    // Keeps only the bytes from offset `from` on, as bytes of its own: the referred ones
    // may go away from here on.
    void keep_from(std::size_t from);

private:
    // Calls add(data, length) for each piece in order, own bytes and referred ones, until
    // it returns false.
    template <typename Add>
    void for_each_piece(Add add) const;

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
