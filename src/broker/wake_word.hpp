// A word that one thread sleeps on until another sets it (a Linux futex). A hand-off
// through it costs the sleeper's wake-up only: a condition variable's waiter takes its
// mutex back when woken (glibc then marks the mutex contended, so every unlock after
// it is a futex call), and its signaller can block on the waiters' bookkeeping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace queuey {

class WakeWord {
public:
    // Where a sleeper sleeps. Waking it is safe after the word is gone (the sleeper
    // returned once the word was set): a futex wake writes nothing, and a sleeper it
    // reaches at that address checks its own word again.
    using Address = const void *;

    explicit WakeWord(std::uint32_t value) : value_(value) {}

    Address address() const { return &value_; }
    std::uint32_t load() const { return value_.load(std::memory_order_acquire); }
    // Publishes what was written before it to the thread that loads the new value.
    void set(std::uint32_t value) { value_.store(value, std::memory_order_release); }
    // Sets value and returns the word before (as set() publishes, and as load() sees).
    std::uint32_t exchange(std::uint32_t value) {
        return value_.exchange(value, std::memory_order_acq_rel);
    }
    // Sets desired if the word holds expected; returns whether it did.
    bool compare_exchange(std::uint32_t expected, std::uint32_t desired) {
        return value_.compare_exchange_strong(expected, desired, std::memory_order_acq_rel);
    }
    // Sleeps while the word holds `unchanged` (a changed word returns at once), until a
    // wake or the deadline; returns the word as it is then.
    std::uint32_t wait_while(std::uint32_t unchanged,
                             std::chrono::steady_clock::time_point deadline) const;
    // Wakes the thread sleeping on the word at where, if one does.
    static void wake(Address where);

private:
    std::atomic<std::uint32_t> value_;
    static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                  std::atomic<std::uint32_t>::is_always_lock_free);
};

}  // namespace queuey
