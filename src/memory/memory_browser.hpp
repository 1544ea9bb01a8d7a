// QueueBrowser on the in-process backend: takes messages out of their queue as
// RabbitMQ's basic.get without auto-ack does, and puts back the ones it did not remove,
// marked redelivered, at their places, when it is closed. A message it holds counts as
// in flight (MemorySnapshot, wait_until_idle).
#pragma once

#include "../backend.hpp"
#include "memory_broker.hpp"

#include <map>
#include <memory>

namespace queuey {

class MemoryBrowser final : public QueueBrowser {
public:
    // Throws Error(QY_ERR_NOT_FOUND) when the queue does not exist.
    MemoryBrowser(std::shared_ptr<MemoryBroker> broker, std::string queue);
    ~MemoryBrowser() override;

    std::optional<BrowsedMessage> next() override;
    void remove(const BrowsedMessage &message) override;
    void close() override;

private:
    std::shared_ptr<MemoryBroker> broker_;
    const std::string queue_;
    std::map<std::uint64_t, QueuedMessage> taken_;  // by tag
    std::uint64_t next_tag_ = 1;
    bool closed_ = false;
};

}  // namespace queuey
