// Waiting in tests for a condition that can be polled (a count, a flag, a counter) instead
// of sleeping a fixed time: header-only, for the unit tests and any other test that does not
// link the integration fixture (which has queuey_it::eventually, with the same contract).
#pragma once

#include <chrono>
#include <thread>

namespace queuey_test {

// Polls holds() every step until it returns true or timeout has passed; returns its last
// value (so a condition that comes true just at the deadline still counts).
template <typename Predicate>
bool eventually(Predicate &&holds, std::chrono::milliseconds timeout,
                std::chrono::milliseconds step = std::chrono::milliseconds(5)) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (holds()) return true;
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(step);
    }
}

}  // namespace queuey_test
