#include "toxiproxy.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace queuey_stress {

namespace {

using namespace std::chrono_literals;

// Closes a file descriptor when it goes out of scope.
class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

std::string errno_text(const std::string &what) { return what + ": " + std::strerror(errno); }

}  // namespace

int free_loopback_port() {
    Fd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (sock.get() < 0) throw std::runtime_error(errno_text("socket"));
    sockaddr_in address = loopback(0);
    if (::bind(sock.get(), reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
        throw std::runtime_error(errno_text("bind 127.0.0.1:0"));
    socklen_t length = sizeof address;
    if (::getsockname(sock.get(), reinterpret_cast<sockaddr *>(&address), &length) != 0)
        throw std::runtime_error(errno_text("getsockname"));
    return ntohs(address.sin_port);
}

Toxiproxy::Toxiproxy(const std::string &server_path, const std::string &log_path) {
    if (::access(server_path.c_str(), X_OK) != 0)
        throw std::runtime_error(
            "no Toxiproxy server at " + server_path +
            " (install it with: bash -c 'source scripts/lib/deps.sh && queuey_toxiproxy_server', "
            "then reconfigure, or point QUEUEY_TOXIPROXY_SERVER at one)");
    api_port_ = free_loopback_port();
    const std::string port = std::to_string(api_port_);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    std::string host_flag = "-host", host = "127.0.0.1", port_flag = "-port";
    char *argv[] = {
        const_cast<char *>(server_path.c_str()), host_flag.data(), host.data(), port_flag.data(),
        const_cast<char *>(port.c_str()),        nullptr};
    const int spawned = ::posix_spawn(&pid_, server_path.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        pid_ = -1;
        throw std::runtime_error("cannot start " + server_path + ": " + std::strerror(spawned));
    }
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (true) {
        try {
            call("GET", "/version");
            return;
        } catch (const std::exception &e) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                throw std::runtime_error(server_path + " exited at start (see " + log_path + ")");
            }
            if (std::chrono::steady_clock::now() >= until) {
                const std::string why = e.what();
                stop();
                throw std::runtime_error("Toxiproxy's API did not answer within 20 s: " + why);
            }
        }
        std::this_thread::sleep_for(50ms);
    }
}

Toxiproxy::~Toxiproxy() { stop(); }

void Toxiproxy::stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + 5s;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() >= until) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &status, 0);
            break;
        }
        std::this_thread::sleep_for(20ms);
    }
    pid_ = -1;
}

int Toxiproxy::add_proxy(const std::string &name, int upstream_port) {
    const int port = free_loopback_port();
    call("POST", "/proxies",
         "{\"name\":\"" + name + "\",\"listen\":\"127.0.0.1:" + std::to_string(port) +
             "\",\"upstream\":\"127.0.0.1:" + std::to_string(upstream_port) +
             "\",\"enabled\":true}");
    return port;
}

void Toxiproxy::set_enabled(const std::string &proxy, bool enabled) {
    call("POST", "/proxies/" + proxy, enabled ? "{\"enabled\":true}" : "{\"enabled\":false}");
}

void Toxiproxy::add_toxic(const std::string &proxy, const std::string &toxic,
                          const std::string &type, const std::string &stream,
                          const std::string &attributes_json) {
    call("POST", "/proxies/" + proxy + "/toxics",
         "{\"name\":\"" + toxic + "\",\"type\":\"" + type + "\",\"stream\":\"" + stream +
             "\",\"toxicity\":1.0,\"attributes\":" + attributes_json + "}");
}

void Toxiproxy::remove_toxic(const std::string &proxy, const std::string &toxic) {
    call("DELETE", "/proxies/" + proxy + "/toxics/" + toxic);
}

std::string Toxiproxy::call(const std::string &method, const std::string &path,
                            const std::string &body) {
    const std::string what = method + " " + path;
    Fd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (sock.get() < 0) throw std::runtime_error(errno_text(what + ": socket"));
    timeval timeout{10, 0};
    ::setsockopt(sock.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(sock.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    sockaddr_in address = loopback(api_port_);
    if (::connect(sock.get(), reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
        throw std::runtime_error(
            errno_text(what + ": connect to 127.0.0.1:" + std::to_string(api_port_)));
    std::string request = method + " " + path +
                          " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                          "Content-Type: application/json\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
    for (std::size_t sent = 0; sent < request.size();) {
        const ssize_t n =
            ::send(sock.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error(errno_text(what + ": send"));
        sent += static_cast<std::size_t>(n);
    }
    std::string response;
    char buffer[4096];
    while (true) {  // Connection: close, so the body ends with the stream
        const ssize_t n = ::recv(sock.get(), buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(errno_text(what + ": recv"));
        if (n == 0) break;
        response.append(buffer, static_cast<std::size_t>(n));
    }
    // "HTTP/1.1 201 Created\r\n..."
    const auto space = response.find(' ');
    const int status = space == std::string::npos ? 0 : std::atoi(response.c_str() + space + 1);
    const auto head_end = response.find("\r\n\r\n");
    std::string reply = head_end == std::string::npos ? "" : response.substr(head_end + 4);
    if (status < 200 || status > 299)
        throw std::runtime_error("Toxiproxy " + what + " " + body + ": HTTP " +
                                 std::to_string(status) + ": " + reply);
    return reply;
}

}  // namespace queuey_stress
