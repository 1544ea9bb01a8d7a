// Job ids whose next redelivery this process caused itself: jobs it held when its
// channel was replaced, before or after running them. RabbitMQ marks such a redelivery
// like that of a job whose worker died; only the second kind may cost an attempt
// (docs/worker.md, crash loops).
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_set>

namespace queuey {

class ForgivenJobs {
public:
    void add(const std::string &job_id);
    // True, once, for an id added before.
    bool take(const std::string &job_id);

private:
    static constexpr std::size_t capacity = 65536;  // the oldest are forgotten first

    std::mutex mutex_;
    std::unordered_set<std::string> ids_;
    std::deque<std::string> order_;
};

}  // namespace queuey
