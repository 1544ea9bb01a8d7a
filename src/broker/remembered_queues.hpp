// The queues a client declared, which each of its connections declares again after a
// reconnect (before subscribing: a queue that is not durable is gone after a broker
// restart). Shared by the client's publishing and consuming connections.
#pragma once

#include "../mutex.hpp"
#include "../topology.hpp"

#include <algorithm>
#include <vector>

namespace queuey {

class RememberedQueues {
public:
    void add(const QueueSpec &spec) {
        MutexLock lock(mutex_);
        if (std::find(specs_.begin(), specs_.end(), spec) == specs_.end()) specs_.push_back(spec);
    }
    std::vector<QueueSpec> all() const {
        MutexLock lock(mutex_);
        return specs_;
    }

private:
    mutable Mutex mutex_;
    std::vector<QueueSpec> specs_ QY_GUARDED_BY(mutex_);
};

}  // namespace queuey
