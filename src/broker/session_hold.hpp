// Who holds a connection's session, as clang's thread-safety analysis sees it. Not a lock:
// the I/O thread holds the session while it runs and lends it to one caller at a time
// (RabbitConnection::borrow_session, give_session_back, take_session_back, ordered by the
// connection's mutex). Fields only the holder may touch say QY_GUARDED_BY(session_hold_),
// and the functions that touch them QY_REQUIRES(session_hold_); the compiler then checks
// that every path to them went through a lend or runs on the I/O thread. The functions
// below do nothing at run time.
#pragma once

#include "../mutex.hpp"

namespace queuey {

class QY_CAPABILITY("the connection's session") SessionHold {
public:
    // The I/O thread takes the session back, or a caller was lent it.
    void take() QY_ACQUIRE() {}
    // The I/O thread lends it (sleeping in poll), or a caller gives it back.
    void give() QY_RELEASE() {}
};

// What only the I/O thread touches, never a caller holding the session.
class QY_CAPABILITY("the I/O thread") IoThreadRole {
public:
    void enter() QY_ACQUIRE() {}
    void leave() QY_RELEASE() {}
};

}  // namespace queuey
