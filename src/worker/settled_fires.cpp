#include "settled_fires.hpp"

namespace queuey {

bool SettledFires::contains(const std::string &job_id, Clock::time_point now) {
    MutexLock lock(mutex_);
    expire(now);
    return ids_.contains(job_id);
}

void SettledFires::add(const std::string &job_id, Clock::time_point now) {
    MutexLock lock(mutex_);
    expire(now);
    if (!ids_.insert(job_id).second) return;
    added_.emplace_back(now, job_id);
    if (added_.size() > capacity_) {
        ids_.erase(added_.front().second);
        added_.pop_front();
    }
}

void SettledFires::expire(Clock::time_point now) {
    while (!added_.empty() && now - added_.front().first >= window_) {
        ids_.erase(added_.front().second);
        added_.pop_front();
    }
}

}  // namespace queuey
