#include "wake_word.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace queuey {

namespace {

long futex(WakeWord::Address word, int op, std::uint32_t value, const timespec *until) {
    // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time: steady_clock's on Linux.
    return ::syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, value, until, nullptr,
                     FUTEX_BITSET_MATCH_ANY);
}

}  // namespace

std::uint32_t WakeWord::wait_while(std::uint32_t unchanged,
                                   std::chrono::steady_clock::time_point deadline) const {
    const auto since_epoch = deadline.time_since_epoch();
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
    const timespec until{static_cast<time_t>(seconds.count()),
                         static_cast<long>((since_epoch - seconds).count())};
    for (;;) {
        const std::uint32_t now = load();
        if (now != unchanged || std::chrono::steady_clock::now() >= deadline) return now;
        // Returns on a wake, a signal, the deadline (ETIMEDOUT) or a word already changed
        // (EAGAIN); the loop tells them apart.
        futex(address(), FUTEX_WAIT_BITSET, unchanged, &until);
    }
}

void WakeWord::wake(Address where) { futex(where, FUTEX_WAKE_BITSET, 1, nullptr); }

}  // namespace queuey
