// SessionLending: the hand-over of a connection's session between its I/O thread and
// callers (session_lending.hpp), driven without a broker: which borrower each sleep lends
// to, who wakes the I/O thread, a failure given back (a lost connection), a channel closed
// under a consumer, a close while a caller holds the session, and many threads at once,
// never two holders.
#include "broker/session_lending.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using queuey::MutexLock;
using queuey::SessionLending;
using Borrower = SessionLending::Borrower;
using Lend = SessionLending::Lend;
using Needs = SessionLending::Needs;
using Socket = SessionLending::Socket;
using State = SessionLending::State;
using Clock = SessionLending::Clock;
using namespace std::chrono_literals;

constexpr int longest_sleep_ms = 1000;

SessionLending::Owed idle_owing_deliveries() { return {true, false, false, true}; }
SessionLending::Owed idle_owing_nothing() { return {true, false, true, false}; }
SessionLending::Owed idle_owing_confirms() { return {true, false, false, false}; }

// The I/O thread's steps, each under the mutex as RabbitConnection takes them.
SessionLending::Sleep fall_asleep(SessionLending &lending, const SessionLending::Owed &owed,
                                  Clock::time_point now = Clock::now()) {
    MutexLock lock(lending.mutex());
    return lending.fall_asleep(owed, longest_sleep_ms, now);
}
Lend lend(SessionLending &lending, Borrower borrower) {
    MutexLock lock(lending.mutex());
    return lending.lend(borrower);
}
bool give_back(SessionLending &lending, std::exception_ptr failure = nullptr,
               Needs needs = Needs::nothing) {
    MutexLock lock(lending.mutex());
    return lending.give_back(std::move(failure), needs);
}
bool posted(SessionLending &lending) {
    MutexLock lock(lending.mutex());
    return lending.posted();
}
std::exception_ptr take_back(SessionLending &lending) {
    MutexLock lock(lending.mutex());
    lending.recall();
    return lending.wait_given_back(lock);
}
void expect_refused(SessionLending &lending, std::initializer_list<Borrower> borrowers) {
    for (Borrower borrower : borrowers)
        EXPECT_EQ(lend(lending, borrower), Lend::refused) << static_cast<int>(borrower);
}
State state_of(SessionLending &lending) {
    MutexLock lock(lending.mutex());
    return lending.state();
}
void callers_published(SessionLending &lending, Clock::time_point now) {
    MutexLock lock(lending.mutex());
    lending.callers_published(now);
}

TEST(SessionLending, AHeldSessionIsLentToNoOne) {
    SessionLending lending;
    for (Borrower borrower :
         {Borrower::publish, Borrower::consumer, Borrower::settle_alone, Borrower::settle_in_a_run})
        EXPECT_EQ(lend(lending, borrower), Lend::refused);
    EXPECT_EQ(state_of(lending), State::held);
}

TEST(SessionLending, ASleepWithCommandsQueuedLendsNothingAndWatchesTheSocket) {
    SessionLending lending;
    SessionLending::Owed busy = idle_owing_deliveries();
    busy.idle = false;
    EXPECT_EQ(fall_asleep(lending, busy).socket, Socket::watched);
    EXPECT_EQ(state_of(lending), State::held);
    EXPECT_EQ(lend(lending, Borrower::settle_alone), Lend::refused);
    EXPECT_FALSE(posted(lending));  // the I/O thread only looks at its socket: no wake needed
}

struct SleepCase {
    const char *sleep;
    Borrower borrower;
    Lend expected;
};

TEST(SessionLending, EachSleepLendsToTheBorrowersItFitsAndHowTheyMayUseIt) {
    const SleepCase cases[] = {
        {"watched", Borrower::publish, Lend::to_write},
        {"watched", Borrower::settle_alone, Lend::to_write},
        {"watched", Borrower::settle_in_a_run, Lend::refused},
        {"watched", Borrower::consumer, Lend::refused},
        {"callers", Borrower::publish, Lend::to_read},
        {"callers", Borrower::settle_alone, Lend::to_write},
        {"callers", Borrower::settle_in_a_run, Lend::refused},
        {"callers", Borrower::consumer, Lend::refused},
        {"consumers", Borrower::publish, Lend::to_write},
        {"consumers", Borrower::settle_alone, Lend::to_write},
        {"consumers", Borrower::settle_in_a_run, Lend::to_write},
        {"consumers", Borrower::consumer, Lend::to_consume},
    };
    for (const SleepCase &c : cases) {
        SCOPED_TRACE(std::string(c.sleep) + " borrower " +
                     std::to_string(static_cast<int>(c.borrower)));
        SessionLending lending;
        const auto now = Clock::now();
        const std::string sleep = c.sleep;
        if (sleep == "callers") callers_published(lending, now);
        const auto owed = sleep == "watched"   ? idle_owing_confirms()
                          : sleep == "callers" ? idle_owing_nothing()
                                               : idle_owing_deliveries();
        const auto asleep = fall_asleep(lending, owed, now);
        EXPECT_EQ(asleep.socket, sleep == "watched"   ? Socket::watched
                                 : sleep == "callers" ? Socket::left_to_callers
                                                      : Socket::left_to_consumers);
        EXPECT_EQ(lend(lending, c.borrower), c.expected);
        EXPECT_EQ(state_of(lending), c.expected == Lend::refused ? State::lendable : State::lent);
    }
}

TEST(SessionLending, OneBorrowerAtATime) {
    SessionLending lending;
    fall_asleep(lending, idle_owing_deliveries());
    ASSERT_EQ(lend(lending, Borrower::consumer), Lend::to_consume);
    EXPECT_EQ(lend(lending, Borrower::settle_alone), Lend::refused);
    EXPECT_FALSE(give_back(lending));
    EXPECT_EQ(state_of(lending), State::lendable);
    EXPECT_EQ(lend(lending, Borrower::settle_alone), Lend::to_write);
}

TEST(SessionLending, TheFirstPostOfASleepWakesTheIoThreadAndEndsTheLending) {
    SessionLending lending;
    fall_asleep(lending, idle_owing_confirms());
    EXPECT_TRUE(posted(lending));
    EXPECT_FALSE(posted(lending));  // one eventfd write per sleep
    EXPECT_EQ(state_of(lending), State::held);
    EXPECT_EQ(lend(lending, Borrower::publish), Lend::refused);
}

TEST(SessionLending, APostWhileLentRecallsTheSessionFromItsBorrower) {
    SessionLending lending;
    fall_asleep(lending, idle_owing_confirms());
    ASSERT_EQ(lend(lending, Borrower::publish), Lend::to_write);
    EXPECT_TRUE(posted(lending));
    EXPECT_FALSE(posted(lending));
    EXPECT_EQ(state_of(lending), State::recalled);
    EXPECT_FALSE(give_back(lending));
    EXPECT_EQ(state_of(lending), State::held);  // the woken I/O thread's, not lendable
    EXPECT_EQ(lend(lending, Borrower::publish), Lend::refused);
    EXPECT_EQ(take_back(lending), nullptr);
}

TEST(SessionLending, CallersPublishingKeepTheSocketForTheirWindowOnly) {
    SessionLending lending;
    const auto start = Clock::now();
    EXPECT_EQ(fall_asleep(lending, idle_owing_nothing(), start).socket, Socket::watched);
    callers_published(lending, start);
    const auto asleep = fall_asleep(lending, idle_owing_nothing(), start);
    EXPECT_EQ(asleep.socket, Socket::left_to_callers);
    EXPECT_EQ(asleep.sleep_ms, SessionLending::callers_window.count());
    // Published again 60 ms on: the sleep goes on to that publish's window end.
    callers_published(lending, start + 60ms);
    const auto wake_by = start + 1s;
    EXPECT_EQ(lending.callers_keep_ms(wake_by, start + 100ms), 60);
    EXPECT_EQ(lending.callers_keep_ms(start + 120ms, start + 100ms), 20);  // its other duties
    EXPECT_EQ(lending.callers_keep_ms(wake_by, start + 160ms), 0);
    EXPECT_EQ(fall_asleep(lending, idle_owing_nothing(), start + 160ms).socket, Socket::watched);
    // Confirms owed by the I/O thread's own publishes: it watches the socket.
    callers_published(lending, start + 200ms);
    EXPECT_EQ(fall_asleep(lending, idle_owing_confirms(), start + 200ms).socket, Socket::watched);
}

TEST(SessionLending, ACallFromAnotherThreadWhileACallerReadsItsConfirmsKeepsTheSocketAWhile) {
    SessionLending lending;
    const auto start = Clock::now();
    callers_published(lending, start);
    fall_asleep(lending, idle_owing_nothing(), start);
    ASSERT_EQ(lend(lending, Borrower::publish), Lend::to_read);
    posted(lending);  // the reader's own post (a held batch) is no overlap
    give_back(lending);
    take_back(lending);
    auto now = Clock::now();
    callers_published(lending, now);
    EXPECT_EQ(fall_asleep(lending, idle_owing_nothing(), now).socket, Socket::left_to_callers);
    ASSERT_EQ(lend(lending, Borrower::publish), Lend::to_read);
    const auto before_post = Clock::now();
    std::thread([&] { EXPECT_TRUE(posted(lending)); }).join();
    const auto after_post = Clock::now();
    give_back(lending);
    take_back(lending);
    // Kept by the I/O thread for overlap_window from the post, however recent the publish.
    now = before_post + SessionLending::overlap_window - 1ms;
    callers_published(lending, now);
    EXPECT_EQ(fall_asleep(lending, idle_owing_nothing(), now).socket, Socket::watched);
    EXPECT_EQ(lending.callers_keep_ms(now + 1s, now), 0);
    now = after_post + SessionLending::overlap_window;
    callers_published(lending, now);
    EXPECT_EQ(fall_asleep(lending, idle_owing_nothing(), now).socket, Socket::left_to_callers);
}

TEST(SessionLending, ConsumersHoldTheSocketForAShortSleepUnlessTheBrokerBlocks) {
    SessionLending lending;
    const auto asleep = fall_asleep(lending, idle_owing_deliveries());
    EXPECT_EQ(asleep.socket, Socket::left_to_consumers);
    EXPECT_EQ(asleep.sleep_ms, SessionLending::consumers_read_at_most.count());
    EXPECT_FALSE(lending.consumer_reads());
    ASSERT_EQ(lend(lending, Borrower::consumer), Lend::to_consume);
    EXPECT_TRUE(lending.consumer_reads());  // the I/O thread sleeps on while it reads
    give_back(lending);
    take_back(lending);
    SessionLending::Owed blocked = idle_owing_deliveries();
    blocked.blocked = true;
    EXPECT_EQ(fall_asleep(lending, blocked).socket, Socket::watched);
    EXPECT_EQ(lend(lending, Borrower::consumer), Lend::refused);
}

TEST(SessionLending, AConnectionLostUnderACallerBreaksTheSessionUntilTheIoThreadRethrows) {
    SessionLending lending;
    fall_asleep(lending, idle_owing_confirms());
    ASSERT_EQ(lend(lending, Borrower::publish), Lend::to_write);
    const auto lost = std::make_exception_ptr(std::runtime_error("connection lost"));
    EXPECT_TRUE(give_back(lending, lost));  // the I/O thread is woken for it
    EXPECT_EQ(state_of(lending), State::held);
    expect_refused(lending, {Borrower::publish, Borrower::settle_alone});
    const std::exception_ptr rethrown = take_back(lending);
    ASSERT_NE(rethrown, nullptr);
    EXPECT_THROW(std::rethrow_exception(rethrown), std::runtime_error);
    EXPECT_EQ(take_back(lending), nullptr);  // given to the I/O thread once
}

TEST(SessionLending, AChannelClosedUnderAConsumerIsTheIoThreadsToReopenBeforeAnyLend) {
    // The consumer read a channel.close: it makes no round trip to reopen the channel, and
    // gives the session back for the I/O thread to do it.
    SessionLending lending;
    fall_asleep(lending, idle_owing_deliveries());
    ASSERT_EQ(lend(lending, Borrower::consumer), Lend::to_consume);
    EXPECT_TRUE(give_back(lending, nullptr, Needs::the_session));
    EXPECT_EQ(state_of(lending), State::held);
    expect_refused(lending, {Borrower::consumer, Borrower::settle_alone, Borrower::publish});
    EXPECT_EQ(take_back(lending), nullptr);  // woken, it finds the session free
    // Reopening, the channel owes more than deliveries: the next sleep watches the socket.
    SessionLending::Owed reopening = idle_owing_deliveries();
    reopening.only_deliveries = false;
    EXPECT_EQ(fall_asleep(lending, reopening).socket, Socket::watched);
    EXPECT_EQ(lend(lending, Borrower::consumer), Lend::refused);
}

TEST(SessionLending, ALookAskedOfTheIoThreadLeavesTheSessionLendable) {
    // Input rabbitmq-c buffered, or confirms still owed on a socket left to callers.
    SessionLending lending;
    fall_asleep(lending, idle_owing_confirms());
    ASSERT_EQ(lend(lending, Borrower::publish), Lend::to_write);
    EXPECT_TRUE(give_back(lending, nullptr, Needs::a_look));
    EXPECT_EQ(state_of(lending), State::lendable);
    EXPECT_EQ(lend(lending, Borrower::settle_alone), Lend::to_write);
}

TEST(SessionLending, AClientClosingWhileACallerHoldsTheSessionWaitsForItsReturn) {
    SessionLending lending;
    const auto now = Clock::now();
    callers_published(lending, now);
    fall_asleep(lending, idle_owing_nothing(), now);
    std::atomic<bool> lent{false}, done{false};
    std::thread caller([&] {
        ASSERT_EQ(lend(lending, Borrower::publish), Lend::to_read);
        lent = true;
        std::this_thread::sleep_for(50ms);  // reads its confirms, then sees the eventfd
        done = true;
        give_back(lending);
    });
    while (!lent) std::this_thread::yield();
    // close(): the I/O thread wakes and takes the session back.
    const auto start = Clock::now();
    MutexLock lock(lending.mutex());
    EXPECT_EQ(lending.recall(), Lend::to_read);  // the reader is woken through the eventfd
    EXPECT_EQ(lending.wait_given_back(lock), nullptr);
    EXPECT_TRUE(done.load());
    EXPECT_GE(Clock::now() - start, 40ms);
    EXPECT_EQ(lending.state(), State::held);
    EXPECT_EQ(lending.lend(Borrower::settle_alone), Lend::refused);
    lock.unlock();
    caller.join();
}

TEST(SessionLending, ManyThreadsNeverHoldTheSessionTogether) {
    SessionLending lending;
    std::atomic<int> holders{0}, most_holders{0};
    std::atomic<bool> stop{false};
    std::atomic<int> failures_given{0}, failures_taken{0}, wakes{0}, sleeps{0};
    std::atomic<int> lends_by_kind[4] = {};
    const auto hold = [&] {
        const int now = ++holders;
        int most = most_holders.load();
        while (now > most && !most_holders.compare_exchange_weak(most, now)) {}
        std::this_thread::yield();
        --holders;
    };
    std::thread io([&] {
        std::mt19937 random(1);
        const SessionLending::Owed sleeps_of[] = {idle_owing_confirms(), idle_owing_nothing(),
                                                  idle_owing_deliveries()};
        while (!stop) {
            hold();  // its turn: runs commands, reads frames
            callers_published(lending, Clock::now());
            SessionLending::Owed owed = sleeps_of[random() % 3];
            owed.idle = random() % 4 != 0;
            fall_asleep(lending, owed);
            ++sleeps;
            std::this_thread::sleep_for(std::chrono::microseconds(random() % 200));
            if (take_back(lending)) ++failures_taken;
        }
    });
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&, t] {
            std::mt19937 random(100 + t);
            while (!stop) {
                const auto borrower = static_cast<Borrower>(random() % 4);
                const Lend how = lend(lending, borrower);
                if (how == Lend::refused) {
                    std::this_thread::yield();
                    continue;
                }
                ++lends_by_kind[static_cast<int>(how)];
                hold();
                std::exception_ptr failure;
                if (random() % 50 == 0) {
                    failure = std::make_exception_ptr(std::runtime_error("lost"));
                    ++failures_given;
                }
                if (give_back(lending, std::move(failure))) std::this_thread::yield();
            }
        });
    std::thread poster([&] {
        while (!stop) {
            if (posted(lending)) ++wakes;
            std::this_thread::sleep_for(50us);
        }
    });
    std::this_thread::sleep_for(2s);
    stop = true;
    for (auto &caller : callers) caller.join();
    poster.join();
    io.join();
    if (take_back(lending)) ++failures_taken;

    EXPECT_EQ(most_holders.load(), 1);
    EXPECT_EQ(failures_taken.load(), failures_given.load());
    EXPECT_GT(failures_given.load(), 0);
    EXPECT_LE(wakes.load(), sleeps.load());  // at most one wake per sleep
    EXPECT_GT(wakes.load(), 0);
    for (Lend kind : {Lend::to_write, Lend::to_read, Lend::to_consume})
        EXPECT_GT(lends_by_kind[static_cast<int>(kind)].load(), 0) << static_cast<int>(kind);
}

}  // namespace
