#include "message_filter.hpp"

#include <algorithm>

namespace queuey {

bool MessageFilter::selects(const QueueMessage &message, std::uint64_t now_ms) const {
    if (!job_ids.empty() &&
        std::find(job_ids.begin(), job_ids.end(), message.job_id) == job_ids.end())
        return false;
    if (job_type && message.job_type != *job_type) return false;
    if (reason_contains && message.reason.find(*reason_contains) == std::string::npos) return false;
    if (older_than_ms && (!message.envelope || message.envelope->age_ms(now_ms) < *older_than_ms))
        return false;
    return true;
}

}  // namespace queuey
