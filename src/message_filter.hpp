// Which messages of a queue a tool acts on (queuey dead list, replay, purge): every
// criterion set must hold; none set selects every message.
#pragma once

#include "queue_message.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace queuey {

struct MessageFilter {
    std::vector<std::string> job_ids;  // any of them; empty: any job
    std::optional<std::string> job_type;
    std::optional<std::string> reason_contains;  // a substring of the dead-letter reason
    // Enqueued (the envelope's enqueued_at) at least this long ago. A body that is no
    // envelope has no age and is never selected by it.
    std::optional<std::uint64_t> older_than_ms;

    bool selects(const QueueMessage &message, std::uint64_t now_ms) const;
};

}  // namespace queuey
