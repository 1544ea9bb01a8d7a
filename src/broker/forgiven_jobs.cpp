#include "forgiven_jobs.hpp"

namespace queuey {

void ForgivenJobs::add(const std::string &job_id) {
    std::lock_guard lock(mutex_);
    if (!ids_.insert(job_id).second) return;
    order_.push_back(job_id);
    if (order_.size() > capacity) {
        ids_.erase(order_.front());
        order_.pop_front();
    }
}

bool ForgivenJobs::take(const std::string &job_id) {
    std::lock_guard lock(mutex_);
    return ids_.erase(job_id) > 0;  // its entry in order_ ages out harmlessly
}

}  // namespace queuey
