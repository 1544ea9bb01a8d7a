#include "memory_history.hpp"

namespace queuey {

void MemoryHistory::copy_to(MemorySnapshot &snapshot) const {
    snapshot.acked.assign(acked_.begin(), acked_.end());
    snapshot.retried.assign(retried_.begin(), retried_.end());
    snapshot.deferred.assign(deferred_.begin(), deferred_.end());
    snapshot.dead_lettered.assign(dead_lettered_.begin(), dead_lettered_.end());
    snapshot.expired.assign(expired_.begin(), expired_.end());
    snapshot.totals = totals_;
}

void MemoryHistory::clear() { *this = MemoryHistory(limit_); }

}  // namespace queuey
