// Jobs that a worker of this process is publishing again as lost-run copies
// (Delivery::requeue_lost), until the original's ack is on the wire. The copy can reach
// this process before that: run at once, a handler that kills its process (the crash
// loop the lost-run budget is for) would take the unsent ack with it, and both the
// original and the copy would come back. A consumer holds such a copy back until the
// original is settled.
#pragma once

#include "../mutex.hpp"

#include <chrono>
#include <condition_variable>
#include <set>
#include <string>

namespace queuey {

class PendingRequeues {
public:
    void begin(const std::string &message_id);
    void end(const std::string &message_id);
    // Returns once message_id is not being requeued, or at deadline.
    void wait_until_done(const std::string &message_id,
                         std::chrono::steady_clock::time_point deadline);

private:
    Mutex mutex_;
    std::condition_variable ended_;
    std::multiset<std::string> ids_ QY_GUARDED_BY(mutex_);
};

}  // namespace queuey
