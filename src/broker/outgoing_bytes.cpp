#include "outgoing_bytes.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
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

template <typename Add>
void OutgoingBytes::for_each_piece(Add add) const {
    std::size_t own_at = 0;
    for (const Referred &referred : referred_) {
        if (!add(own_.data() + own_at, referred.at - own_at) ||
            !add(referred.bytes.data(), referred.bytes.size()))
            return;
        own_at = referred.at;
    }
    add(own_.data() + own_at, own_.size() - own_at);
}

ssize_t OutgoingBytes::send(int fd, std::size_t from, int flags) {
    pieces_.clear();
    std::size_t skip = from;
    // Adds bytes to the pieces, less what is skipped; false once sendmsg takes no more.
    for_each_piece([&](const char *data, std::size_t length) {
        if (skip >= length) {
            skip -= length;
            return true;
        }
        pieces_.push_back({const_cast<char *>(data + skip), length - skip});
        skip = 0;
        return pieces_.size() < IOV_MAX;
    });
    msghdr message{};
    message.msg_iov = pieces_.data();
    message.msg_iovlen = pieces_.size();
    return ::sendmsg(fd, &message, flags);
}

OutgoingBytes::Sent OutgoingBytes::send_all(int fd, std::chrono::steady_clock::time_point until,
                                            std::size_t keep_at_most) {
    using Clock = std::chrono::steady_clock;
    std::size_t sent = 0;
    bool waited = false;
    while (sent < size()) {
        const ssize_t wrote = send(fd, sent, MSG_NOSIGNAL);
        if (wrote > 0) {
            sent += static_cast<std::size_t>(wrote);
            continue;
        }
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            waited = true;
            // Without a limit (the I/O thread), as rabbitmq-c waits: the socket's
            // TCP_USER_TIMEOUT fails a broker that stopped reading.
            int wait_ms = -1;
            if (until != Clock::time_point::max()) {
                const auto left =
                    std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
                wait_ms = static_cast<int>(std::clamp<long long>(left.count(), 0, INT_MAX));
            }
            pollfd socket{fd, POLLOUT, 0};
            const int ready = ::poll(&socket, 1, wait_ms);
            if (ready > 0 || (ready < 0 && errno == EINTR)) continue;
            if (ready == 0) {
                keep_from(sent);
                return Sent::left;
            }
        }
        if (wrote == 0) errno = 0;
        const int why = errno;
        clear(keep_at_most);
        errno = why;
        return Sent::failed;
    }
    clear(keep_at_most);
    return waited ? Sent::all_after_waiting : Sent::all;
}

void OutgoingBytes::keep_from(std::size_t from) {
    std::string rest;
    rest.reserve(size() - std::min(from, size()));
    std::size_t skip = from;
    for_each_piece([&](const char *data, std::size_t length) {
        const std::size_t skipped = std::min(skip, length);
        rest.append(data + skipped, length - skipped);
        skip -= skipped;
        return true;
    });
    own_ = std::move(rest);
    referred_.clear();
    referred_size_ = 0;
}

}  // namespace queuey
