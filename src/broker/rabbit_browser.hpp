// QueueBrowser on RabbitMQ: basic.get without auto-ack on a channel borrowed from the
// publishing connection. Every message it took stays unacknowledged on that channel, so
// the next get returns the one behind it; closing the channel puts back the ones it did
// not remove, each at its place in the queue (RabbitMQ marks them redelivered).
#pragma once

#include "../backend.hpp"
#include "rabbit_connection.hpp"

#include <chrono>
#include <memory>

namespace queuey {

class RabbitBrowser final : public QueueBrowser {
public:
    // Each call waits at most timeout for the broker.
    RabbitBrowser(RabbitConnection &connection, const std::string &queue,
                  std::chrono::milliseconds timeout);
    ~RabbitBrowser() override;

    std::optional<BrowsedMessage> next() override;
    void remove(const BrowsedMessage &message) override;
    void close() override;

private:
    RabbitConnection::Clock::time_point deadline() const;

    RabbitConnection &connection_;
    const std::chrono::milliseconds timeout_;
    std::shared_ptr<BorrowedChannel> channel_;
};

}  // namespace queuey
