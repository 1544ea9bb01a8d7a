// A queue a consumer subscribed to: its configuration, and the hold queues that the
// retries and deferrals of its deliveries publish into, each built once per TTL and
// shared by every publish into it (a retry builds no queue spec of its own). Shared by
// the consumer and its deliveries: a delivery may outlive its consumer.
#pragma once

#include "../mutex.hpp"
#include "../topology.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace queuey {

class ConsumedQueue {
public:
    explicit ConsumedQueue(QueueConfig config) : config_(std::move(config)) {}

    const QueueConfig &config() const { return config_; }
    // The hold queue of a successor held for delay (hold_queue_spec); throws what
    // hold_ttl_ms throws for a delay out of range.
    std::shared_ptr<const QueueSpec> hold_for(std::chrono::nanoseconds delay) const;

private:
    // A retry policy or a deferral yields a few distinct TTLs; past this many (a jitter at
    // a fine granularity) a hold spec is built for each publish rather than kept.
    static constexpr std::size_t max_kept_holds = 64;

    const QueueConfig config_;
    mutable Mutex mutex_;
    mutable std::vector<std::pair<std::uint64_t, std::shared_ptr<const QueueSpec>>> holds_
        QY_GUARDED_BY(mutex_);
};

}  // namespace queuey
