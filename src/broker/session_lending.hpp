// The hand-over of a connection's session between its I/O thread and callers (issue 42,
// docs/broker.md "The hand-over: one state machine"): the one place that says who
// holds the session, whom it may be lent to, and when the I/O thread is woken.
//
// States, and who moves the session from which to which:
//
//   from       event (by whom)                                       to
//   held       fall_asleep, idle (the I/O thread, before its poll)   lendable
//   lendable   lend, a borrower that fits the sleep (a caller)       lent
//   lendable   posted (a caller) or recall (the I/O thread, woken)   held
//   lent       give_back (the borrower)                              lendable, or held (Needs)
//   lent       posted or recall                                      recalled
//   recalled   give_back (the borrower)                              held
//
// - held: the I/O thread holds the session (it runs, or sleeps with commands queued, or
//   was woken); every lend is refused.
// - lendable: the I/O thread sleeps in poll with nothing queued; the first caller whose
//   kind fits the sleep borrows the session. The first post of the sleep wakes the I/O
//   thread (posted returns true).
// - lent: one caller holds it, as Lend says: to_write (its publishes or settles), to_read
//   (its confirms too: the socket is left to callers) or to_consume (its deliveries: the
//   socket is left to consumers). Only the borrower's thread touches the session.
// - recalled: lent, and the I/O thread wants it back. A caller that reads polls the
//   eventfd too: the wake that recalled it makes it give back at once. A session given
//   back broken (a failure) or with work for the I/O thread first (output left unsent,
//   a channel to reopen) is held: the I/O thread rethrows the failure or does the work
//   before anyone borrows it again.
//
// What each sleep leaves to callers (Socket): watched, the I/O thread polls the socket and
// callers only write; left to callers, a publisher reads its own confirms; left to
// consumers, a consumer with no delivery reads the socket, and settles of a run are
// written by their caller. All of it is under mutex(), which the connection shares for
// what a lend depends on (its command queue, its failure).
#pragma once

#include "../mutex.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <thread>

namespace queuey {

class SessionLending {
public:
    using Clock = std::chrono::steady_clock;

    // After a caller wrote its own publish, the I/O thread leaves the socket to callers
    // for this long while nothing is owed on it (a caller's own confirm); it sleeps on
    // while callers keep publishing, and wakes at its end to look again.
    static constexpr std::chrono::milliseconds callers_window{100};
    // After a call came while a caller read its confirms (calls overlap), the I/O thread
    // keeps the socket for this long: a reader interrupted by every post would wake with
    // the I/O thread, and then wait for it all the same.
    static constexpr std::chrono::milliseconds overlap_window{1000};
    // Settles closer together than this are left to the I/O thread, which coalesces those
    // of one turn: about the time it takes to wake.
    static constexpr std::chrono::microseconds settles_coalesce_within{100};
    // A sleep that leaves the socket to consumers ends this often, unless one of them
    // reads: a broker's notice (a cancel, a close) waits no longer than that while the
    // consumers are busy with their jobs.
    static constexpr std::chrono::milliseconds consumers_read_at_most{20};

    enum class State { held, lendable, lent, recalled };
    enum class Socket { watched, left_to_callers, left_to_consumers };
    // How a caller holds the session; refused: it does not.
    enum class Lend { refused, to_write, to_read, to_consume };
    // A publish reads too when the socket is left to callers, a consumer reads only a
    // socket left to consumers; a settle only writes, and one that others follow closely
    // only while the socket is left to consumers (otherwise the I/O thread's next turn
    // coalesces it with the others).
    enum class Borrower { publish, consumer, settle_alone, settle_in_a_run };

    // What the I/O thread knows as it goes to sleep.
    struct Owed {
        bool idle = false;             // no command queued (or the broker blocks publishing)
        bool blocked = false;          // connection.blocked: the socket is watched for the unblock
        bool nothing = false;          // no confirm, declare-ok, consumer or borrowed channel
        bool only_deliveries = false;  // consumers consuming, nothing else outstanding
    };
    struct Sleep {
        Socket socket = Socket::watched;
        int sleep_ms = 0;  // the poll's timeout
    };

    // The mutex every transition takes; the connection guards what a lend depends on
    // with it too.
    Mutex &mutex() const QY_RETURN_CAPABILITY(mutex_) { return mutex_; }

    // The I/O thread, before its poll: lendable when idle (held otherwise), with the
    // socket left to callers or consumers when owed fits; sleep_ms is shortened to the
    // end of a window left to callers or consumers.
    Sleep fall_asleep(const Owed &owed, int sleep_ms, Clock::time_point now) QY_REQUIRES(mutex_);
    // A command was queued: true when the poster must wake the I/O thread (the first
    // post of a sleep). A post that comes while another thread reads its confirms makes
    // the I/O thread keep the socket for overlap_window.
    bool posted() QY_REQUIRES(mutex_);
    // The calling thread borrows the session if the state is lendable and the sleep fits
    // the borrower; how it holds it, or refused.
    Lend lend(Borrower borrower) QY_REQUIRES(mutex_);
    // What a borrower leaves for the I/O thread as it gives the session back.
    enum class Needs {
        nothing,
        // A look: input rabbitmq-c buffered (no poll sees it), or more owed on a socket
        // left to callers or consumers than they read. Lendable meanwhile.
        a_look,
        // The session before any other lend: output left unsent, a channel to reopen.
        the_session,
    };
    // The borrower gives the session back, with what failed under it (the I/O thread
    // rethrows it; a broken session needs the I/O thread's turn too): lendable again, or
    // held when recalled meanwhile or when the I/O thread needs the session. True when
    // the I/O thread must be woken.
    bool give_back(std::exception_ptr failure, Needs needs) QY_REQUIRES(mutex_);
    // The I/O thread, woken: no caller may borrow from now on. Returns how the session is
    // lent (refused: it is not); a reader must then be woken through the eventfd.
    Lend recall() QY_REQUIRES(mutex_);
    // The I/O thread after recall: waits until the borrower gives the session back (a
    // borrower's waits are bounded by its call's deadline: docs/broker.md), and returns
    // the failure it gave back, once. The state is held.
    std::exception_ptr wait_given_back(MutexLock &lock) QY_REQUIRES(mutex_);

    // Callers wrote their own publishes: the socket may be left to them a while.
    void callers_published(Clock::time_point now) QY_REQUIRES(mutex_);
    // The I/O thread, asleep leaving the socket to callers, at the end of its sleep: how
    // much longer (ms) to sleep as callers published since, but not past wake_by; 0: wake.
    int callers_keep_ms(Clock::time_point wake_by, Clock::time_point now) const QY_EXCLUDES(mutex_);
    // A consumer holds the session, reading its deliveries.
    bool consumer_reads() const QY_EXCLUDES(mutex_);

    State state() const QY_REQUIRES(mutex_) { return state_; }

private:
    mutable Mutex mutex_;
    std::condition_variable returned_;
    State state_ QY_GUARDED_BY(mutex_) = State::held;
    Socket socket_ QY_GUARDED_BY(mutex_) = Socket::watched;  // the sleep's, while not held
    Lend lent_as_ QY_GUARDED_BY(mutex_) = Lend::refused;     // while lent or recalled
    std::thread::id lent_to_ QY_GUARDED_BY(mutex_);
    std::exception_ptr failure_ QY_GUARDED_BY(mutex_);  // given back, not yet taken
    // The socket is left to callers while now is before the first and not before the second.
    Clock::time_point callers_publish_until_ QY_GUARDED_BY(mutex_){};
    Clock::time_point callers_overlap_until_ QY_GUARDED_BY(mutex_){};
};

}  // namespace queuey
