#include "hold_schedule.hpp"

#include <algorithm>

namespace queuey {

namespace {

// The heap's "less": a message that is due later ranks lower, so the earliest is on top.
bool later_than(const HeldMessage &a, const HeldMessage &b) {
    if (a.due != b.due) return a.due > b.due;
    return a.sequence > b.sequence;
}

}  // namespace

void HoldSchedule::add(Clock::time_point due, std::string queue, MemoryMessage message) {
    heap_.push_back({due, next_sequence_++, std::move(queue), std::move(message)});
    std::push_heap(heap_.begin(), heap_.end(), later_than);
}

std::optional<HoldSchedule::Clock::time_point> HoldSchedule::next_due() const {
    if (heap_.empty()) return std::nullopt;
    return heap_.front().due;
}

std::vector<HeldMessage> HoldSchedule::take_due(Clock::time_point now) {
    std::vector<HeldMessage> due;
    while (!heap_.empty() && heap_.front().due <= now) {
        std::pop_heap(heap_.begin(), heap_.end(), later_than);
        due.push_back(std::move(heap_.back()));
        heap_.pop_back();
    }
    return due;
}

std::vector<HeldMessage> HoldSchedule::in_due_order() const {
    std::vector<HeldMessage> held = heap_;
    std::sort(held.begin(), held.end(),
              [](const HeldMessage &a, const HeldMessage &b) { return later_than(b, a); });
    return held;
}

}  // namespace queuey
