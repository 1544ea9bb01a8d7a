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
    ready_.wait_until(lock, deadline, [this] { return !deliveries_.empty() || failure_; });
    if (failure_) throw *failure_;
    if (deliveries_.empty()) return std::nullopt;
    IncomingDelivery delivery = std::move(deliveries_.front());
    deliveries_.pop_front();
    return delivery;
}

bool DeliveryQueue::empty() {
    std::lock_guard lock(mutex_);
    return deliveries_.empty();
}

}  // namespace queuey
