#include "memory_queue.hpp"

#include <algorithm>
#include <variant>

namespace queuey {

MemoryQueue::MemoryQueue(QueueSpec spec) : spec_(std::move(spec)) {
    for (const QueueArgument &argument : spec_.arguments) {
        if (argument.name == "x-max-priority") {
            if (const auto *max = std::get_if<std::uint8_t>(&argument.value)) max_priority_ = *max;
        } else if (argument.name == "x-message-ttl") {
            if (const auto *ttl = std::get_if<std::int64_t>(&argument.value))
                message_ttl_ = std::chrono::milliseconds(*ttl);
        } else if (argument.name == "x-delivery-limit") {
            if (const auto *limit = std::get_if<std::int64_t>(&argument.value))
                delivery_limit_ = *limit;
        } else if (argument.name == "x-dead-letter-routing-key") {
            if (const auto *target = std::get_if<std::string>(&argument.value))
                dead_letter_target_ = *target;
        }
    }
}

std::uint8_t MemoryQueue::level_of(std::uint8_t priority) const {
    // RabbitMQ clips a priority above the queue's maximum to it; a queue without
    // priorities ignores them.
    return max_priority_ ? std::min(priority, *max_priority_) : 0;
}

MemoryQueue::Clock::time_point MemoryQueue::expiry_of(const QueuedMessage &message) const {
    // Alive while it has waited at most the TTL in whole milliseconds: never early, and a
    // TTL of 0 still lets a consumer that is already waiting take the message.
    return message.arrived + *message_ttl_ + std::chrono::milliseconds(1);
}

void MemoryQueue::push(MemoryMessage message, Clock::time_point now) {
    const std::uint8_t level = level_of(message.envelope.priority);
    levels_[level].push_back({std::move(message), next_sequence_++, now, false});
}

std::optional<QueuedMessage> MemoryQueue::requeue(QueuedMessage message, bool redelivered) {
    message.redelivered = redelivered;
    if (message.returns < UINT32_MAX) ++message.returns;
    if (delivery_limit_ && message.returns > *delivery_limit_) return message;
    auto &level = levels_[level_of(message.message.envelope.priority)];
    const auto place = std::lower_bound(level.begin(), level.end(), message.sequence,
                                        [](const QueuedMessage &queued, std::uint64_t sequence) {
                                            return queued.sequence < sequence;
                                        });
    level.insert(place, std::move(message));
    return std::nullopt;
}

std::size_t MemoryQueue::ready() const {
    std::size_t count = 0;
    for (const auto &[level, messages] : levels_) count += messages.size();
    return count;
}

std::optional<QueuedMessage> MemoryQueue::pop(Clock::time_point now,
                                              std::vector<MemoryMessage> &expired) {
    expire(now, expired);
    if (levels_.empty()) return std::nullopt;
    const auto top = levels_.begin();
    QueuedMessage message = std::move(top->second.front());
    top->second.pop_front();
    if (top->second.empty()) levels_.erase(top);
    return message;
}

void MemoryQueue::expire(Clock::time_point now, std::vector<MemoryMessage> &expired) {
    if (!message_ttl_) return;
    // Arrival times grow with the sequence, so each level expires from its front.
    for (auto level = levels_.begin(); level != levels_.end();) {
        auto &messages = level->second;
        while (!messages.empty() && expiry_of(messages.front()) <= now) {
            expired.push_back(std::move(messages.front().message));
            messages.pop_front();
        }
        level = messages.empty() ? levels_.erase(level) : std::next(level);
    }
}

std::optional<MemoryQueue::Clock::time_point> MemoryQueue::next_expiry() const {
    if (!message_ttl_) return std::nullopt;
    std::optional<Clock::time_point> first;
    for (const auto &[level, messages] : levels_) {
        const auto expiry = expiry_of(messages.front());
        if (!first || expiry < *first) first = expiry;
    }
    return first;
}

std::vector<Envelope> MemoryQueue::pending() const {
    std::vector<Envelope> envelopes;
    for (const auto &[level, messages] : levels_)
        for (const QueuedMessage &queued : messages) envelopes.push_back(queued.message.envelope);
    return envelopes;
}

}  // namespace queuey
