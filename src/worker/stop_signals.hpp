// SIGINT and SIGTERM as a graceful stop: handlers that raise the stop flags of the
// workers registered here. Only a lock-free atomic store happens inside the handler
// (async-signal-safe); the workers see their flag within their idle poll and shut down
// on their own threads (docs/worker.md, shutdown).
#pragma once

#include <atomic>
#include <memory>

namespace queuey {

class StopSignals {
public:
    // Registers flag: SIGINT or SIGTERM sets it. The first registration installs the
    // handlers; the previous ones come back when the last registration ends. A second
    // signal while a flag is set already gets the previous disposition (by default the
    // process ends), so that a stuck shutdown can still be interrupted. Throws Error
    // when the handlers cannot be installed or too many flags are registered.
    explicit StopSignals(std::shared_ptr<std::atomic<bool>> flag);
    ~StopSignals();
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

private:
    std::shared_ptr<std::atomic<bool>> flag_;
    std::size_t slot_;
};

}  // namespace queuey
