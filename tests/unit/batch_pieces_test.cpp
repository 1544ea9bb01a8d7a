// A batch cut into pieces: how many jobs a piece takes, and the unconfirmed pieces'
// outcomes taken oldest first, in the envelopes' order, late ones named as such.
#include "broker/batch_pieces.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace queuey {
namespace {

using Clock = std::chrono::steady_clock;

// Envelopes whose payloads are JSON strings of the given sizes (quotes included).
std::vector<Envelope> jobs_of(const std::vector<std::size_t> &payload_sizes) {
    std::vector<Envelope> jobs;
    for (const std::size_t size : payload_sizes)
        jobs.push_back(Envelope::create("job", "q", '"' + std::string(size - 2, 'x') + '"'));
    return jobs;
}

std::vector<const Envelope *> refs(const std::vector<Envelope> &jobs) {
    std::vector<const Envelope *> out;
    for (const Envelope &job : jobs) out.push_back(&job);
    return out;
}

TEST(NextPieceSize, SmallJobsShareOnePiece) {
    const auto jobs = jobs_of(std::vector<std::size_t>(1000, 100));
    EXPECT_EQ(next_piece_size(refs(jobs)), 1000u);
}

TEST(NextPieceSize, APieceStopsBeforeItsBytesPassTheLimit) {
    // 300 KiB each with the fields' allowance: three fit in 1 MiB, a fourth does not.
    const auto jobs = jobs_of(std::vector<std::size_t>(10, 300 * 1024));
    EXPECT_EQ(next_piece_size(refs(jobs)), 3u);
}

TEST(NextPieceSize, AJobBiggerThanAPieceGoesAlone) {
    const auto jobs = jobs_of({3 << 20, 100, 100});
    const auto all = refs(jobs);
    EXPECT_EQ(next_piece_size(all), 1u);
    EXPECT_EQ(next_piece_size(EnvelopeRefs(all).subspan(1)), 2u);
}

TEST(NextPieceSize, NothingLeftIsAPieceOfNone) { EXPECT_EQ(next_piece_size(EnvelopeRefs()), 0u); }

std::shared_ptr<PublishBatch> piece_with_bodies(const std::vector<std::size_t> &body_sizes) {
    auto piece = std::make_shared<PublishBatch>(body_sizes.size());
    for (std::size_t i = 0; i < body_sizes.size(); ++i)
        piece->messages[i].body.assign(body_sizes[i], 'b');
    return piece;
}

const auto late = [](PublishBatch &) { return PublishOutcome{QY_ERR_TIMEOUT, "late"}; };

TEST(UnconfirmedPieces, CountsTheBytesOfTheBodiesHeld) {
    UnconfirmedPieces pieces;
    EXPECT_TRUE(pieces.empty());
    auto first = piece_with_bodies({100, 200});
    first->waiter.complete(0, {QY_OK, ""});
    first->waiter.complete(1, {QY_OK, ""});
    pieces.add(first);
    pieces.add(piece_with_bodies({4000}));
    EXPECT_EQ(pieces.bytes(), 4300u);
    std::vector<PublishOutcome> outcomes;
    EXPECT_TRUE(pieces.take_oldest(Clock::now() + std::chrono::seconds(5), outcomes, late));
    EXPECT_EQ(pieces.bytes(), 4000u);
    EXPECT_FALSE(pieces.empty());
    EXPECT_EQ(outcomes.size(), 2u);
}

TEST(UnconfirmedPieces, OutcomesComeInTheOrderOfThePieces) {
    UnconfirmedPieces pieces;
    auto first = piece_with_bodies({10, 10});
    auto second = piece_with_bodies({10});
    second->waiter.complete(0, {QY_ERR_NACKED, "third job"});
    first->waiter.complete(1, {QY_ERR_UNROUTABLE, "second job"});
    first->waiter.complete(0, {QY_OK, ""});
    pieces.add(first);
    pieces.add(second);
    std::vector<PublishOutcome> outcomes;
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    EXPECT_TRUE(pieces.take_oldest(deadline, outcomes, late));
    EXPECT_TRUE(pieces.take_oldest(deadline, outcomes, late));
    EXPECT_TRUE(pieces.empty());
    ASSERT_EQ(outcomes.size(), 3u);
    EXPECT_EQ(outcomes[0].status, QY_OK);
    EXPECT_EQ(outcomes[1].status, QY_ERR_UNROUTABLE);
    EXPECT_EQ(outcomes[1].message, "second job");
    EXPECT_EQ(outcomes[2].status, QY_ERR_NACKED);
}

TEST(UnconfirmedPieces, APieceNotConfirmedInTimeGetsTheLateOutcomeForItsMissingJobs) {
    UnconfirmedPieces pieces;
    auto piece = piece_with_bodies({10, 10, 10});
    piece->waiter.complete(1, {QY_OK, ""});
    pieces.add(piece);
    std::vector<PublishOutcome> outcomes;
    EXPECT_FALSE(pieces.take_oldest(Clock::now(), outcomes, late));
    ASSERT_EQ(outcomes.size(), 3u);
    EXPECT_EQ(outcomes[0].status, QY_ERR_TIMEOUT);
    EXPECT_EQ(outcomes[0].message, "late");
    EXPECT_EQ(outcomes[1].status, QY_OK);
    EXPECT_EQ(outcomes[2].status, QY_ERR_TIMEOUT);
    EXPECT_EQ(pieces.bytes(), 0u);
}

}  // namespace
}  // namespace queuey
