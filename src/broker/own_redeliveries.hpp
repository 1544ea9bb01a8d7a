// Message ids (job ids) whose next redelivery this process caused itself: what a channel
// held unsettled when it was closed or replaced (a lost connection, a channel error, a
// consumer closed), started or not. RabbitMQ marks such a redelivery like that of a job
// whose worker died; only the second kind is a lost run (docs/worker.md, lost runs).
// The I/O thread records, consuming threads take.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_set>

namespace queuey {

class OwnRedeliveries {
public:
    // An empty id is never recorded: such a redelivery cannot be told apart.
    void record(const std::string &message_id);
    // True, once, for an id recorded before.
    bool take(const std::string &message_id);

private:
    static constexpr std::size_t capacity = 65536;  // the oldest are forgotten first

    std::mutex mutex_;
    std::unordered_set<std::string> ids_;
    std::deque<std::string> order_;
};

}  // namespace queuey
