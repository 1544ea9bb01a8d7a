// Who decides the fate of a command posted to the I/O thread: the thread, by starting
// it, or its caller, by giving up first. A command whose caller gave up is never run
// later (a subscribe that timed out during a reconnect used to run after it anyway and
// hold jobs for the client's whole life; a publish that never left used to be reported
// as "may or may not have been accepted").
#pragma once

#include <atomic>

namespace queuey {

class CommandClaim {
public:
    // I/O thread: true when the command may run; false when its caller gave up.
    bool start() { return claim(started); }
    // Caller: true when the command had not started, and now never will.
    bool abandon() { return claim(abandoned); }
    // Pending again, for a command reused once nobody else holds it.
    void reset() { state_.store(pending); }

private:
    enum State { pending, started, abandoned };
    bool claim(State to) {
        State expected = pending;
        return state_.compare_exchange_strong(expected, to) || expected == to;
    }
    std::atomic<State> state_{pending};
};

}  // namespace queuey
