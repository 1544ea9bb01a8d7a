#include "delivery_queue.hpp"

#include <algorithm>

namespace queuey {

DeliveryQueue::Waiter *DeliveryQueue::take_waiter() {
    if (waiters_.empty()) return nullptr;
    Waiter *waiter = waiters_.back();
    waiters_.pop_back();
    return waiter;
}

void DeliveryQueue::push(IncomingDelivery delivery) {
    MutexLock lock(mutex_);
    Waiter *waiter = take_waiter();
    if (!waiter) return deliveries_.push_back(std::move(delivery));
    handed_.push_back(waiter->word.address());  // taken while the waiter surely lives
    waiter->delivery.emplace(std::move(delivery));
    waiter->word.set(Waiter::handed);
}

void DeliveryQueue::wake_handed() {
    std::vector<WakeWord::Address> woken;
    {
        MutexLock lock(mutex_);
        if (handed_.empty()) return;
        woken.swap(handed_);
    }
    for (WakeWord::Address where : woken) WakeWord::wake(where);
}

void DeliveryQueue::fail(const Error &error) {
    std::vector<WakeWord::Address> woken;
    {
        MutexLock lock(mutex_);
        failure_.emplace(error);
        deliveries_.clear();
        woken.swap(handed_);  // those keep what they were handed
        for (Waiter *waiter : waiters_) {
            woken.push_back(waiter->word.address());
            waiter->word.set(Waiter::failed);
        }
        waiters_.clear();
    }
    for (WakeWord::Address where : woken) WakeWord::wake(where);
}

std::optional<IncomingDelivery> DeliveryQueue::pop(std::chrono::steady_clock::time_point deadline) {
    Waiter waiter;
    {
        MutexLock lock(mutex_);
        if (failure_) throw *failure_;
        if (!deliveries_.empty()) {
            IncomingDelivery delivery = std::move(deliveries_.front());
            deliveries_.pop_front();
            return delivery;
        }
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        waiters_.push_back(&waiter);
    }
    std::uint32_t ended = waiter.word.wait_while(Waiter::asleep, deadline);
    if (ended == Waiter::asleep) {  // the deadline: unless a hand-off came meanwhile
        MutexLock lock(mutex_);
        const auto mine = std::find(waiters_.begin(), waiters_.end(), &waiter);
        if (mine != waiters_.end()) {
            waiters_.erase(mine);
            return std::nullopt;
        }
    }
    // Off waiters_, so whoever took it off sets the word (now or in a moment).
    ended = waiter.word.wait_while(Waiter::asleep, std::chrono::steady_clock::time_point::max());
    if (ended == Waiter::failed) {
        MutexLock lock(mutex_);
        throw *failure_;
    }
    return std::move(waiter.delivery);  // nothing when nudged
}

bool DeliveryQueue::nudge() {
    Waiter *waiter;
    {
        MutexLock lock(mutex_);
        waiter = take_waiter();  // a thread waits only while no delivery does
    }
    if (!waiter) return false;
    const WakeWord::Address where = waiter->word.address();
    waiter->word.set(Waiter::nudged);
    WakeWord::wake(where);
    return true;
}

DeliveryQueue::Taking::Taking(DeliveryQueue &queue) : queue_(queue) {
    if (queue_.takers_.fetch_add(1) > 0) queue_.shared_ = true;
}

DeliveryQueue::Taking::~Taking() { queue_.takers_.fetch_sub(1); }

bool DeliveryQueue::wants_nudge() {
    MutexLock lock(mutex_);
    return !waiters_.empty();
}

bool DeliveryQueue::empty() {
    MutexLock lock(mutex_);
    return deliveries_.empty();
}

std::unordered_set<std::string> DeliveryQueue::drop_waiting(std::uint16_t channel) {
    MutexLock lock(mutex_);
    std::unordered_set<std::string> ids;
    std::erase_if(deliveries_, [&](const IncomingDelivery &delivery) {
        if (delivery.channel != channel) return false;
        ids.insert(delivery.message_id);
        return true;
    });
    return ids;
}

}  // namespace queuey
