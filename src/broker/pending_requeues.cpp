#include "pending_requeues.hpp"

namespace queuey {

void PendingRequeues::begin(const std::string &message_id) {
    MutexLock lock(mutex_);
    ids_.insert(message_id);
}

void PendingRequeues::end(const std::string &message_id) {
    {
        MutexLock lock(mutex_);
        const auto found = ids_.find(message_id);
        if (found != ids_.end()) ids_.erase(found);
    }
    ended_.notify_all();
}

void PendingRequeues::wait_until_done(const std::string &message_id,
                                      std::chrono::steady_clock::time_point deadline) {
    MutexLock lock(mutex_);
    while (ids_.count(message_id) != 0)
        if (ended_.wait_until(lock.for_wait(), deadline) == std::cv_status::timeout) return;
}

}  // namespace queuey
