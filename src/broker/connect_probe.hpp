// Why a TCP connection to the broker cannot be opened, in the system's words.
// rabbitmq-c 0.11 reports every failed connect as "a socket error occurred" and leaves
// errno at EINPROGRESS (its connect is non-blocking), so a refused port and an
// unreachable host read alike; queuey tries one plain connect of its own to tell them apart.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace queuey {

// "connection refused (127.0.0.1:5672)": why a connect to each address of host:port
// fails (the last address's reason), or nullopt when one of them accepts now.
std::optional<std::string> connect_failure(const std::string &host, int port,
                                           std::chrono::milliseconds timeout);

}  // namespace queuey
