#include "own_redeliveries.hpp"

namespace queuey {

void OwnRedeliveries::record(const std::string &message_id) {
    if (message_id.empty()) return;
    std::lock_guard lock(mutex_);
    if (!ids_.insert(message_id).second) return;
    order_.push_back(message_id);
    if (order_.size() > capacity) {
        ids_.erase(order_.front());
        order_.pop_front();
    }
}

bool OwnRedeliveries::take(const std::string &message_id) {
    std::lock_guard lock(mutex_);
    return ids_.erase(message_id) > 0;  // its entry in order_ ages out harmlessly
}

}  // namespace queuey
