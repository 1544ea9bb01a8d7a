#include "connect_probe.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>

namespace queuey {

namespace {

// 0 when a connect to address succeeds within timeout, else the errno of its failure.
int try_connect(const addrinfo &address, std::chrono::milliseconds timeout) {
    const int fd = ::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                            address.ai_protocol);
    if (fd < 0) return errno;
    int error = 0;
    if (::connect(fd, address.ai_addr, address.ai_addrlen) != 0) {
        error = errno;
        if (error == EINPROGRESS) {
            pollfd writable{fd, POLLOUT, 0};
            const int ready = ::poll(&writable, 1, static_cast<int>(timeout.count()));
            socklen_t size = sizeof error;
            if (ready == 0)
                error = ETIMEDOUT;
            else if (ready < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0)
                error = errno;
        }
    }
    ::close(fd);
    return error;
}

std::string address_text(const addrinfo &address) {
    char host[NI_MAXHOST], port[NI_MAXSERV];
    if (::getnameinfo(address.ai_addr, address.ai_addrlen, host, sizeof host, port, sizeof port,
                      NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return "?";
    const bool v6 = address.ai_family == AF_INET6;
    return std::string(v6 ? "[" : "").append(host).append(v6 ? "]:" : ":").append(port);
}

}  // namespace

std::optional<std::string> connect_failure(const std::string &host, int port,
                                           std::chrono::milliseconds timeout) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (const int failed =
            ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found))
        return std::string("cannot resolve '") + host + "': " + ::gai_strerror(failed);
    const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
    std::optional<std::string> why;
    for (const addrinfo *address = found; address != nullptr; address = address->ai_next) {
        const int error = try_connect(*address, timeout);
        if (error == 0) return std::nullopt;
        std::string reason = std::strerror(error);
        if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(reason[0]));
        why = reason + " (" + address_text(*address) + ")";
    }
    return why;
}

}  // namespace queuey
