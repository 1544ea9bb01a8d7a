#include "stop_signals.hpp"

#include "../error.hpp"
#include "../mutex.hpp"

#include <array>
#include <cerrno>
#include <cstring>

#include <signal.h>

namespace queuey {

namespace {

constexpr std::array<int, 2> stop_signals{SIGINT, SIGTERM};
constexpr std::size_t max_flags = 64;

// Read by the handler: plain arrays of lock-free atomics, no allocation, no lock.
std::array<std::atomic<std::atomic<bool> *>, max_flags> flags{};
std::array<struct sigaction, stop_signals.size()> previous{};

Mutex registry_mutex;  // guards the count and installing / restoring
std::size_t registered QY_GUARDED_BY(registry_mutex) = 0;

static_assert(std::atomic<std::atomic<bool> *>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

void on_stop_signal(int signal) {
    bool stopping_already = false;
    for (auto &slot : flags)
        if (std::atomic<bool> *flag = slot.load()) stopping_already |= flag->exchange(true);
    if (!stopping_already) return;
    for (std::size_t i = 0; i < stop_signals.size(); ++i)
        if (stop_signals[i] == signal) sigaction(signal, &previous[i], nullptr);
    raise(signal);  // the second one: what the process did before queuey
}

}  // namespace

StopSignals::StopSignals(std::shared_ptr<std::atomic<bool>> flag) : flag_(std::move(flag)) {
    MutexLock lock(registry_mutex);
    slot_ = max_flags;
    for (std::size_t i = 0; i < max_flags && slot_ == max_flags; ++i) {
        std::atomic<bool> *empty = nullptr;
        if (flags[i].compare_exchange_strong(empty, flag_.get())) slot_ = i;
    }
    if (slot_ == max_flags)
        throw Error(QY_ERR_INVALID_ARGUMENT, "", "more than 64 workers stop on signals at once");
    if (registered++ > 0) return;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags =
        SA_RESTART | SA_ONSTACK;  // SA_ONSTACK: the Go runtime requires it of C handlers
    for (std::size_t i = 0; i < stop_signals.size(); ++i) {
        if (sigaction(stop_signals[i], &action, &previous[i]) != 0) {
            const int error = errno;
            while (i-- > 0) sigaction(stop_signals[i], &previous[i], nullptr);
            --registered;
            flags[slot_] = nullptr;
            throw Error(QY_ERR_INTERNAL, "",
                        std::string("cannot install a signal handler: ") + std::strerror(error));
        }
    }
}

StopSignals::~StopSignals() {
    MutexLock lock(registry_mutex);
    flags[slot_] = nullptr;
    if (--registered > 0) return;
    for (std::size_t i = 0; i < stop_signals.size(); ++i)
        sigaction(stop_signals[i], &previous[i], nullptr);
}

}  // namespace queuey
