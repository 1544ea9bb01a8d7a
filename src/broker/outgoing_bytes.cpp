#include "outgoing_bytes.hpp"

#include <sys/socket.h>

#include <climits>

namespace queuey {

namespace {

// Shorter bytes are copied: a piece of their own in the sendmsg costs more than the copy.
constexpr std::size_t shortest_referred = 1024;

}  // namespace

void OutgoingBytes::refer(std::string_view bytes) {
    if (bytes.size() < shortest_referred) {
        own_ += bytes;
        return;
    }
    referred_.push_back({own_.size(), bytes});
    referred_size_ += bytes.size();
}

void OutgoingBytes::clear(std::size_t keep_at_most) {
    own_.clear();
    referred_.clear();
    referred_size_ = 0;
    if (own_.capacity() > keep_at_most) own_.shrink_to_fit();
}

ssize_t OutgoingBytes::send(int fd, std::size_t from, int flags) {
    pieces_.clear();
    std::size_t skip = from;
    // Adds bytes to the pieces, less what is skipped; false once sendmsg takes no more.
    const auto add = [&](const char *data, std::size_t length) {
        if (skip >= length) {
            skip -= length;
            return true;
        }
        pieces_.push_back({const_cast<char *>(data + skip), length - skip});
        skip = 0;
        return pieces_.size() < IOV_MAX;
    };
    std::size_t own_at = 0;
    bool room = true;
    for (const Referred &referred : referred_) {
        room = add(own_.data() + own_at, referred.at - own_at) &&
               add(referred.bytes.data(), referred.bytes.size());
        own_at = referred.at;
        if (!room) break;
    }
    if (room) add(own_.data() + own_at, own_.size() - own_at);
    msghdr message{};
    message.msg_iov = pieces_.data();
    message.msg_iovlen = pieces_.size();
    return ::sendmsg(fd, &message, flags);
}

}  // namespace queuey
