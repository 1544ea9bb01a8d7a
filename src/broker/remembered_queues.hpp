// The queues a client declared, which each of its connections declares again after a
// reconnect (before subscribing: a queue that is not durable is gone after a broker
// restart). Shared by the client's publishing and consuming connections.
#pragma once

#include "../topology.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace queuey {

class RememberedQueues {
public:
    void add(const QueueSpec &spec) {
        std::lock_guard lock(mutex_);
        if (std::find(specs_.begin(), specs_.end(), spec) == specs_.end()) specs_.push_back(spec);
    }
    std::vector<QueueSpec> all() const {
        std::lock_guard lock(mutex_);
        return specs_;
    }

private:
    mutable std::mutex mutex_;
    std::vector<QueueSpec> specs_;
};

}  // namespace queuey
