// Message ids (job ids) whose next redelivery this process caused itself: what a channel
// held unsettled when it was closed or replaced (a lost connection, a channel error, a
// consumer closed), started or not. RabbitMQ marks such a redelivery like that of a job
// whose worker died; only the second kind is a lost run (docs/worker.md, lost runs) --
// and a run that the broker's consumer timeout cut, which is recorded as such: the job
// ran past the broker's limit and would run past it again, for ever, if it cost nothing.
// The I/O thread records, consuming threads take.
#pragma once

#include "../mutex.hpp"

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>

namespace queuey {

enum class OwnReturn {
    given_back,              // costs nothing: not started, finished, or running on
    cut_by_consumer_timeout  // was running when the broker's consumer timeout closed its channel
};

class OwnRedeliveries {
public:
    // An empty id is never recorded: such a redelivery cannot be told apart. A run cut by
    // the consumer timeout stays recorded as such until taken, whatever is recorded after.
    void record(const std::string &message_id, OwnReturn why = OwnReturn::given_back);
    // What was recorded for the id, once; nullopt for an id not recorded.
    std::optional<OwnReturn> take(const std::string &message_id);

private:
    static constexpr std::size_t capacity = 65536;  // the oldest are forgotten first

    Mutex mutex_;
    std::unordered_map<std::string, OwnReturn> ids_ QY_GUARDED_BY(mutex_);
    std::deque<std::string> order_ QY_GUARDED_BY(mutex_);
};

}  // namespace queuey
