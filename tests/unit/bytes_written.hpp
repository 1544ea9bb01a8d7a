// What a writer puts on a socket: write_and_close gets one end of a socket pair, writes
// and closes it, while a thread drains the other end. And what OutgoingBytes::send puts
// there.
#pragma once

#include "broker/outgoing_bytes.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <thread>

namespace queuey::test {

// Everything that arrives on read_fd, read by a thread while write_and_close writes the
// other end and closes it.
inline std::string drained(int read_fd, const std::function<void()> &write_and_close) {
    std::string bytes;
    std::thread reader([&] {
        char chunk[65536];
        ssize_t got;
        while ((got = ::read(read_fd, chunk, sizeof chunk)) > 0)
            bytes.append(chunk, static_cast<std::size_t>(got));
    });
    write_and_close();
    reader.join();
    return bytes;
}

inline std::string bytes_written(const std::function<void(int fd)> &write_and_close) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return "socketpair failed";
    std::string bytes = drained(fds[1], [&] { write_and_close(fds[0]); });
    ::close(fds[1]);
    return bytes;
}

// out's bytes from `from` on, as OutgoingBytes::send writes them until done.
inline std::string sent_from(OutgoingBytes &out, std::size_t from = 0) {
    return bytes_written([&](int fd) {
        while (from < out.size()) {
            const ssize_t wrote = out.send(fd, from, 0);
            if (wrote <= 0) break;
            from += static_cast<std::size_t>(wrote);
        }
        ::close(fd);
    });
}

}  // namespace queuey::test
