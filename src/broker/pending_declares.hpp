// Queue declares sent on the declarations channel and not answered yet, oldest first.
// A declare is not a blocking RPC on the I/O thread: a broker that stops reading (a
// memory alarm blocks a publishing connection) would stall every other channel behind it
// and, at the RPC timeout, be mistaken for a lost connection. The broker answers the
// methods of one channel in order, so each declare-ok completes the oldest; a refused
// declare closes the channel, and the broker drops the declares sent after it.
// Used by the session's holder only (rabbit_connection.hpp): a caller that borrowed the
// session declares a batch's holds.
#pragma once

#include "../error.hpp"
#include "../topology.hpp"

#include <deque>
#include <functional>
#include <vector>

namespace queuey {

class PendingDeclares {
public:
    enum class Result {
        declared,
        refused,  // by the broker: the queue exists with other arguments, ...
        lost,     // the connection went before the broker answered
    };
    // Called once on the I/O thread; failure is null when declared.
    using Done = std::function<void(Result, const Error *failure)>;

    void sent(QueueSpec spec, Done done);
    // The broker's declare-ok: the oldest is done.
    void answered();
    // The broker closed the channel: the oldest fails with the broker's reason; the others
    // were dropped unanswered and are returned, oldest first, to be sent again.
    std::vector<QueueSpec> refused(qy_status status, const std::string &reason);
    // The connection is gone: every declare fails with error.
    void fail_all(const Error &error);
    bool empty() const { return waiting_.empty(); }

private:
    struct Declare {
        QueueSpec spec;
        Done done;
    };
    std::deque<Declare> waiting_;
};

}  // namespace queuey
