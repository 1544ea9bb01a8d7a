#include "session_lending.hpp"

#include <algorithm>
#include <utility>

namespace queuey {

namespace {

int ms_until(SessionLending::Clock::time_point until, SessionLending::Clock::time_point now) {
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(until - now).count());
}

}  // namespace

SessionLending::Sleep SessionLending::fall_asleep(const Owed &owed, int sleep_ms,
                                                  Clock::time_point now) {
    // Callers publishing one after another read their own confirms: only one thread
    // wakes per confirm. Consumers that wait for none read their own deliveries when
    // they want more: no thread wakes for the deliveries of busy consumers. A broker
    // that blocked publishing is watched for its unblock.
    const bool to_callers =
        owed.nothing && now < callers_publish_until_ && now >= callers_overlap_until_;
    Sleep sleep{Socket::watched, sleep_ms};
    if (owed.idle && !owed.blocked && (to_callers || owed.only_deliveries)) {
        sleep.socket = to_callers ? Socket::left_to_callers : Socket::left_to_consumers;
        const auto until = to_callers ? callers_publish_until_ : now + consumers_read_at_most;
        sleep.sleep_ms = std::min(sleep_ms, ms_until(until, now));
    }
    socket_ = sleep.socket;
    state_ = owed.idle ? State::lendable : State::held;
    return sleep;
}

bool SessionLending::posted() {
    // Not the reader's own post (a held batch after its hold's declare-ok).
    const bool lent = state_ == State::lent || state_ == State::recalled;
    if (lent && lent_as_ == Lend::to_read && lent_to_ != std::this_thread::get_id())
        callers_overlap_until_ = Clock::now() + overlap_window;
    // Only a sleeping I/O thread needs the eventfd; a busy one takes the command on its
    // next turn. The first poster ends the sleep: one write per sleep.
    switch (state_) {
        case State::lendable: state_ = State::held; return true;
        case State::lent: state_ = State::recalled; return true;
        case State::held:
        case State::recalled: return false;
    }
    return false;
}

SessionLending::Lend SessionLending::lend(Borrower borrower) {
    if (state_ != State::lendable) return Lend::refused;
    const bool to_consumers = socket_ == Socket::left_to_consumers;
    switch (borrower) {
        case Borrower::consumer: lent_as_ = to_consumers ? Lend::to_consume : Lend::refused; break;
        case Borrower::settle_in_a_run:
            lent_as_ = to_consumers ? Lend::to_write : Lend::refused;
            break;
        case Borrower::settle_alone: lent_as_ = Lend::to_write; break;
        case Borrower::publish:
            lent_as_ = socket_ == Socket::left_to_callers ? Lend::to_read : Lend::to_write;
            break;
    }
    if (lent_as_ == Lend::refused) return Lend::refused;
    state_ = State::lent;
    lent_to_ = std::this_thread::get_id();
    return lent_as_;
}

bool SessionLending::give_back(std::exception_ptr failure, Needs needs) {
    if (failure) needs = Needs::the_session;
    const bool lendable = state_ == State::lent && needs != Needs::the_session;
    state_ = lendable ? State::lendable : State::held;
    lent_as_ = Lend::refused;
    // Moved, not copied: the I/O thread then holds its only reference (a copy released
    // here later would be a race ThreadSanitizer cannot see through libstdc++).
    failure_ = std::move(failure);
    returned_.notify_one();
    return needs != Needs::nothing;
}

SessionLending::Lend SessionLending::recall() {
    switch (state_) {
        case State::lendable: state_ = State::held; return Lend::refused;
        case State::lent: state_ = State::recalled; return lent_as_;
        case State::recalled: return lent_as_;
        case State::held: return Lend::refused;
    }
    return Lend::refused;
}

std::exception_ptr SessionLending::wait_given_back(MutexLock &lock) {
    while (state_ == State::recalled) returned_.wait(lock.for_wait());
    return std::exchange(failure_, nullptr);
}

void SessionLending::callers_published(Clock::time_point now) {
    callers_publish_until_ = now + callers_window;
}

int SessionLending::callers_keep_ms(Clock::time_point wake_by, Clock::time_point now) const {
    // Nothing new is owed meanwhile: a caller's give-back wakes the I/O thread for
    // anything owed, and a post wakes it for its command.
    MutexLock lock(mutex_);
    const auto until = std::min(callers_publish_until_, wake_by);
    if (now >= until || now < callers_overlap_until_) return 0;
    return ms_until(until, now);
}

bool SessionLending::consumer_reads() const {
    MutexLock lock(mutex_);
    return (state_ == State::lent || state_ == State::recalled) && lent_as_ == Lend::to_consume;
}

}  // namespace queuey
