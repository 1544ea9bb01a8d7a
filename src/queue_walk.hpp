// The tools' walks over a queue (docs/cli.md): browse its messages, and replay or purge
// a work queue's dead letters. Each walk takes the messages one at a time with a
// QueueBrowser, so that the queue keeps every message it does not remove, in its order;
// a message is removed only after what replaces it is confirmed: a crash at any point
// leaves a duplicate, never a loss.
#pragma once

#include "backend.hpp"
#include "error.hpp"
#include "message_filter.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace queuey {

// Hands the messages of queue_name that filter selects to visit, in queue order, at
// most limit of them (0: no limit), until visit returns false. Nothing is removed.
void browse_messages(Backend &backend, const std::string &queue_name, const MessageFilter &filter,
                     std::size_t limit, const std::function<bool(const QueueMessage &)> &visit);

struct WalkOutcome {
    std::uint64_t done = 0;  // replayed or purged
    std::uint64_t left = 0;  // selected, but left in the queue (first_failure says why)
    std::optional<Error> first_failure;
};

// Publishes each dead letter of queue's q.dead that filter selects to its original
// queue (x-original-queue): its envelope as it is with keep_attempt, else as attempt 1
// with 0 deferrals (same job id, type, payload, correlation id, priority and enqueue
// time), without the dead-letter headers or RabbitMQ's x-death; removes it from q.dead
// once the broker confirmed the publish. A body that is no envelope is left.
WalkOutcome replay_dead_letters(Backend &backend, const std::string &queue,
                                const MessageFilter &filter, bool keep_attempt);
// Removes each dead letter of queue's q.dead that filter selects.
WalkOutcome purge_dead_letters(Backend &backend, const std::string &queue,
                               const MessageFilter &filter);

}  // namespace queuey
