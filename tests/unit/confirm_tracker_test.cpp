// Publisher confirms attributed to their publishes (behaviour.md section 4), and the
// waiter a caller blocks on while they arrive.
#include "broker/confirm_tracker.hpp"
#include "broker/publish_waiter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::shared_ptr<PublishWaiter> waiter(std::size_t publishes) {
    return std::make_shared<PublishWaiter>(publishes);
}

bool done(PublishWaiter &w) { return w.wait_until(Clock::now()); }

TEST(ConfirmTracker, NumbersPublishesFromOne) {
    ConfirmTracker tracker;
    auto w = waiter(3);
    EXPECT_EQ(tracker.published("a", w, 0), 1u);
    EXPECT_EQ(tracker.published("b", w, 1), 2u);
    EXPECT_EQ(tracker.published("c", w, 2), 3u);
    EXPECT_EQ(tracker.outstanding(), 3u);
}

TEST(ConfirmTracker, ReturnInAPipelinedBatchFailsOnlyThatPublish) {
    ConfirmTracker tracker;
    auto w = waiter(5);
    const std::string ids[] = {"job-1", "job-2", "job-3", "job-4", "job-5"};  // kept: viewed
    for (std::size_t i = 0; i < 5; ++i) tracker.published(ids[i], w, i);
    tracker.returned("job-3", 312, "NO_ROUTE");
    EXPECT_FALSE(done(*w));
    tracker.acked(5, true);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(tracker.outstanding(), 0u);
    const auto &outcomes = w->outcomes();
    for (const std::size_t ok : {0u, 1u, 3u, 4u}) {
        EXPECT_EQ(outcomes[ok].status, QY_OK) << ok;
        EXPECT_EQ(outcomes[ok].message, "") << ok;
    }
    EXPECT_EQ(outcomes[2].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(outcomes[2].message,
              "publish of message job-3 was returned by the broker: 312 NO_ROUTE");
}

TEST(ConfirmTracker, AReturnForWantOfAQueueNamesTheQueue) {
    ConfirmTracker tracker;
    auto w = waiter(1);
    tracker.published("job-1", w, 0, "emails");
    tracker.returned("job-1", 312, "NO_ROUTE", "emails");
    tracker.acked(1, false);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(w->outcomes()[0].message,
              "publish of message job-1 was returned by the broker: 312 NO_ROUTE: there is no "
              "queue 'emails' (declare it first)");
}

TEST(ConfirmTracker, ReturnGoesToTheEarliestPublishWithThatId) {
    ConfirmTracker tracker;
    auto w = waiter(2);
    tracker.published("same", w, 0);
    tracker.published("same", w, 1);
    tracker.returned("same", 312, "NO_ROUTE");
    tracker.acked(2, true);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(w->outcomes()[1].status, QY_OK);
}

TEST(ConfirmTracker, SecondReturnOfTheSameIdGoesToTheNextPublish) {
    ConfirmTracker tracker;
    auto w = waiter(3);
    tracker.published("same", w, 0);
    tracker.published("same", w, 1);
    tracker.published("same", w, 2);
    tracker.returned("same", 312, "NO_ROUTE");
    tracker.returned("same", 312, "NO_ROUTE");
    tracker.acked(3, true);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(w->outcomes()[1].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(w->outcomes()[2].status, QY_OK);
}

TEST(ConfirmTracker, ReturnOfAnUnknownIdIsIgnored) {
    ConfirmTracker tracker;
    auto w = waiter(1);
    tracker.published("a", w, 0);
    tracker.returned("nobody", 312, "NO_ROUTE");
    tracker.acked(1, false);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_OK);
}

TEST(ConfirmTracker, SingleAcksMaySettleOutOfOrder) {
    ConfirmTracker tracker;
    auto w = waiter(3);
    tracker.published("a", w, 0);
    tracker.published("b", w, 1);
    tracker.published("c", w, 2);
    tracker.returned("a", 312, "NO_ROUTE");
    tracker.acked(2, false);
    EXPECT_EQ(tracker.outstanding(), 2u);
    EXPECT_FALSE(done(*w));
    tracker.acked(3, false);
    EXPECT_EQ(tracker.outstanding(), 1u);
    EXPECT_FALSE(done(*w));
    tracker.acked(1, false);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(w->outcomes()[1].status, QY_OK);
    EXPECT_EQ(w->outcomes()[2].status, QY_OK);
}

TEST(ConfirmTracker, AcksForTagsNotOutstandingAreIgnored) {
    ConfirmTracker tracker;
    auto w = waiter(2);
    tracker.published("a", w, 0);
    tracker.published("b", w, 1);
    tracker.acked(1, false);
    tracker.acked(1, false);   // settled already
    tracker.acked(1, true);    // nothing left up to 1
    tracker.nacked(1, false);  // settled already
    tracker.acked(99, false);  // never sent
    EXPECT_EQ(tracker.outstanding(), 1u);
    EXPECT_FALSE(done(*w));
    tracker.acked(2, false);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_OK);
    EXPECT_EQ(w->outcomes()[1].status, QY_OK);
    ConfirmTracker empty;
    empty.acked(1, true);
    empty.nacked(7, false);
    EXPECT_EQ(empty.outstanding(), 0u);
}

TEST(ConfirmTracker, MultipleSettlesOnlyUpToItsTag) {
    ConfirmTracker tracker;
    auto w = waiter(4);
    const std::string ids[] = {"m0", "m1", "m2", "m3"};  // kept: the tracker views them
    for (std::size_t i = 0; i < 4; ++i) tracker.published(ids[i], w, i);
    tracker.acked(2, true);
    EXPECT_EQ(tracker.outstanding(), 2u);
    EXPECT_FALSE(done(*w));
    tracker.nacked(4, true);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_OK);
    EXPECT_EQ(w->outcomes()[1].status, QY_OK);
    EXPECT_EQ(w->outcomes()[2].status, QY_ERR_NACKED);
    EXPECT_EQ(w->outcomes()[2].message,
              "publish of message m2 was refused by the broker (basic.nack)");
    EXPECT_EQ(w->outcomes()[3].status, QY_ERR_NACKED);
    EXPECT_EQ(w->outcomes()[3].message,
              "publish of message m3 was refused by the broker (basic.nack)");
}

TEST(ConfirmTracker, MultipleWithTagZeroSettlesEverything) {
    // AMQP 0-9-1 basic.ack: multiple with delivery tag 0 covers every outstanding message.
    ConfirmTracker tracker;
    auto w = waiter(2);
    tracker.published("a", w, 0);
    tracker.published("b", w, 1);
    tracker.acked(0, false);  // tag 0 alone is no publish
    EXPECT_EQ(tracker.outstanding(), 2u);
    tracker.acked(0, true);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[1].status, QY_OK);
}

TEST(ConfirmTracker, SingleNackFailsOnlyItsPublish) {
    ConfirmTracker tracker;
    auto w = waiter(2);
    tracker.published("a", w, 0);
    tracker.published("b", w, 1);
    tracker.nacked(2, false);
    tracker.acked(1, false);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_OK);
    EXPECT_EQ(w->outcomes()[1].status, QY_ERR_NACKED);
}

TEST(ConfirmTracker, SettlesEachWaiterSeparately) {
    ConfirmTracker tracker;
    auto first = waiter(1);
    auto second = waiter(2);
    tracker.published("a", first, 0);
    tracker.published("b", second, 1);
    tracker.published("c", second, 0);
    tracker.acked(2, true);
    EXPECT_TRUE(done(*first));
    EXPECT_FALSE(done(*second));
    tracker.acked(3, false);
    ASSERT_TRUE(done(*second));
    EXPECT_EQ(second->outcomes()[0].status, QY_OK);
    EXPECT_EQ(second->outcomes()[1].status, QY_OK);
}

TEST(ConfirmTracker, FailAllFailsEveryOutstandingPublish) {
    ConfirmTracker tracker;
    auto w = waiter(3);
    tracker.published("a", w, 0);
    tracker.published("b", w, 1);
    tracker.published("c", w, 2);
    tracker.acked(1, false);
    tracker.fail_all(QY_ERR_CONNECTION, "connection lost");
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(tracker.outstanding(), 0u);
    EXPECT_EQ(w->outcomes()[0].status, QY_OK);
    EXPECT_EQ(w->outcomes()[1].status, QY_ERR_CONNECTION);
    EXPECT_EQ(w->outcomes()[1].message, "connection lost");
    EXPECT_EQ(w->outcomes()[2].status, QY_ERR_CONNECTION);
    tracker.acked(3, true);  // a late ack from the old channel changes nothing
    EXPECT_EQ(w->outcomes()[2].status, QY_ERR_CONNECTION);
}

TEST(ConfirmTracker, ResetRestartsTagsAtOne) {
    ConfirmTracker tracker;
    auto old_batch = waiter(2);
    tracker.published("a", old_batch, 0);
    tracker.published("b", old_batch, 1);
    tracker.fail_all(QY_ERR_CONNECTION, "channel closed");
    tracker.reset();
    auto w = waiter(1);
    EXPECT_EQ(tracker.published("c", w, 0), 1u);
    tracker.acked(1, false);
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_OK);
}

TEST(ConfirmTracker, ResetFailsWhatWasStillOutstanding) {
    ConfirmTracker tracker;
    auto w = waiter(1);
    tracker.published("a", w, 0);
    tracker.reset();
    ASSERT_TRUE(done(*w));
    EXPECT_EQ(w->outcomes()[0].status, QY_ERR_CONNECTION);
    EXPECT_EQ(tracker.outstanding(), 0u);
    EXPECT_EQ(tracker.published("b", waiter(1), 0), 1u);
}

TEST(PublishWaiter, PastDeadlineWhilePendingIsFalse) {
    PublishWaiter w(2);
    EXPECT_FALSE(w.wait_until(Clock::now() - 1s));
    w.complete(0, {QY_OK, ""});
    EXPECT_FALSE(w.wait_until(Clock::now() - 1s));
    EXPECT_FALSE(w.wait_until(Clock::now() + 10ms));
    w.complete(1, {QY_ERR_NACKED, "no"});
    EXPECT_TRUE(w.wait_until(Clock::now() - 1s));
    EXPECT_EQ(w.outcomes()[1].message, "no");
}

TEST(PublishWaiter, NothingToWaitForIsDone) {
    PublishWaiter w(0);
    EXPECT_TRUE(w.wait_until(Clock::now() - 1s));
}

TEST(PublishWaiter, StrayCompletionsDoNotReleaseEarly) {
    PublishWaiter w(2);
    w.complete(5, {QY_OK, ""});  // no such index
    w.complete(2, {QY_OK, ""});
    EXPECT_FALSE(w.wait_until(Clock::now()));
}

TEST(PublishWaiter, ACompletionAfterTheLastChangesNothing) {
    PublishWaiter w(1);
    w.complete(0, {QY_OK, ""});
    w.complete(0, {QY_ERR_NACKED, "late"});
    ASSERT_TRUE(w.wait_until(Clock::now()));
    EXPECT_EQ(w.outcomes()[0].status, QY_OK);
}

TEST(PublishWaiter, TakenOutcomesAreTheOutcomesAndALateCompletionFindsNone) {
    PublishWaiter w(2);
    w.complete(1, {QY_ERR_UNROUTABLE, "returned"});
    w.complete(0, {QY_OK, ""});
    ASSERT_TRUE(w.wait_until(Clock::now()));
    const std::vector<PublishOutcome> taken = w.take_outcomes();
    ASSERT_EQ(taken.size(), 2u);
    EXPECT_EQ(taken[0].status, QY_OK);
    EXPECT_EQ(taken[1].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(taken[1].message, "returned");
    w.complete(1, {QY_ERR_NACKED, "late"});  // the I/O thread may still hold the waiter
    EXPECT_TRUE(w.outcomes().empty());
    EXPECT_TRUE(w.finished());
}

TEST(PublishWaiter, AResetWaiterWaitsForItsNewPublishes) {
    PublishWaiter w(1);
    w.complete(0, {QY_ERR_NACKED, "no"});
    ASSERT_TRUE(w.wait_until(Clock::now()));
    (void)w.take_outcomes();
    w.reset(2);
    EXPECT_FALSE(w.finished());
    w.complete(1, {QY_OK, ""});
    EXPECT_FALSE(w.wait_until(Clock::now()));
    w.complete(0, {QY_OK, ""});
    ASSERT_TRUE(w.wait_until(Clock::now()));
    ASSERT_EQ(w.outcomes().size(), 2u);
    EXPECT_EQ(w.outcomes()[0].status, QY_OK);  // not the nack from before
    EXPECT_EQ(w.outcomes()[0].message, "");
}

TEST(PublishWaiter, OneOutcomeTakenLeavesTheWaiterReusable) {
    PublishWaiter w(1);
    w.complete(0, {QY_ERR_UNROUTABLE, "returned"});
    ASSERT_TRUE(w.wait_until(Clock::now()));
    const PublishOutcome taken = w.take_outcome(0);
    EXPECT_EQ(taken.status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(taken.message, "returned");
    w.complete(0, {QY_ERR_NACKED, "late"});  // completed once already: ignored
    EXPECT_EQ(w.outcomes().size(), 1u);
    w.reset(1);
    EXPECT_FALSE(w.finished());
    w.complete(0, {QY_OK, ""});
    ASSERT_TRUE(w.wait_until(Clock::now()));
    EXPECT_EQ(w.take_outcome(0).status, QY_OK);
}

TEST(PublishWaiter, CompletionFromAnotherThreadWakesTheWaiter) {
    auto w = waiter(2);
    const auto start = Clock::now();
    std::thread io([w] {
        std::this_thread::sleep_for(20ms);
        w->complete(1, {QY_OK, ""});
        std::this_thread::sleep_for(20ms);
        w->complete(0, {QY_ERR_UNROUTABLE, "returned"});
    });
    const bool finished = w->wait_until(start + 30s);
    const auto waited = Clock::now() - start;
    io.join();
    ASSERT_TRUE(finished);
    EXPECT_GE(waited, 40ms);
    EXPECT_LT(waited, 10s);  // woken by the completion, not by the deadline
    EXPECT_EQ(w->outcomes()[0].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(w->outcomes()[1].status, QY_OK);
}

}  // namespace
}  // namespace queuey
