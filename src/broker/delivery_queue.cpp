#include "delivery_queue.hpp"

namespace queuey {

void DeliveryQueue::push(IncomingDelivery delivery) {
    {
        std::lock_guard lock(mutex_);
        deliveries_.push_back(std::move(delivery));
    }
    ready_.notify_one();
}

void DeliveryQueue::fail(const Error &error) {
    {
        std::lock_guard lock(mutex_);
        failure_.emplace(error);
        deliveries_.clear();
    }
    ready_.notify_all();
}

std::optional<IncomingDelivery> DeliveryQueue::pop(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    ++waiters_;
    ready_.wait_until(lock, deadline,
                      [this] { return !deliveries_.empty() || failure_ || nudged_; });
    --waiters_;
    if (failure_) throw *failure_;
    if (deliveries_.empty()) {
        nudged_ = false;  // one nudged consumer reads for all
        return std::nullopt;
    }
    IncomingDelivery delivery = std::move(deliveries_.front());
    deliveries_.pop_front();
    return delivery;
}

bool DeliveryQueue::nudge() {
    {
        std::lock_guard lock(mutex_);
        if (waiters_ <= deliveries_.size()) return false;
        nudged_ = true;
    }
    ready_.notify_all();  // those that find a delivery take it; one without is nudged
    return true;
}

DeliveryQueue::Taking::Taking(DeliveryQueue &queue) : queue_(queue) {
    if (queue_.takers_.fetch_add(1) > 0) queue_.shared_ = true;
}

DeliveryQueue::Taking::~Taking() { queue_.takers_.fetch_sub(1); }

bool DeliveryQueue::wants_nudge() {
    std::lock_guard lock(mutex_);
    return waiters_ > deliveries_.size();
}

bool DeliveryQueue::empty() {
    std::lock_guard lock(mutex_);
    return deliveries_.empty();
}

}  // namespace queuey
