// The batch of one message that a thread reuses for its publishes one at a time: reused
// only when nobody else holds it, and handed out empty and waiting again. The piece of a
// batch a thread keeps for its next batch, likewise. A message's body, which refers to a
// long shared payload where a batch asks for it.
#include "broker/publish_batch.hpp"
#include "envelope_codec.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

namespace queuey {
namespace {

using Clock = std::chrono::steady_clock;

// A batch as a publish leaves it: filled in, confirmed, claimed, with a hold.
void use(PublishBatch &batch, std::size_t body_bytes = 200) {
    OutgoingMessage &message = batch.messages.front();
    message.queue = "jobs.with.a.longish.queue.name";
    message.properties.message_id = "0d8f9c22-5e3b-4f1a-9c77-2b1a6f0e3d44";
    message.properties.headers.push_back({"x-attempt", 1u});
    message.body.assign(body_bytes, 'x');
    batch.holds.push_back(std::make_shared<const QueueSpec>());
    batch.waiter.complete(0, {QY_OK, ""});
    ASSERT_TRUE(batch.claim.start());
}

// A reused batch as it is handed out again: its first message empty, in the storage its
// body had (no allocation), its waiter waiting and its claim pending (its caller may
// still give up).
void expect_empty_and_waiting(PublishBatch &batch, const char *body_storage) {
    const OutgoingMessage &message = batch.messages.front();
    EXPECT_TRUE(message.queue.empty());
    EXPECT_TRUE(message.properties.headers.empty());
    EXPECT_TRUE(message.body.empty());
    EXPECT_EQ(message.body.data(), body_storage);
    EXPECT_FALSE(batch.waiter.finished());
    EXPECT_TRUE(batch.claim.abandon());
}

TEST(ReusableBatch, IsTheThreadsOwnOnceLetGoAndComesBackEmpty) {
    PublishBatch *first = nullptr;
    const char *body_storage = nullptr;
    {
        const auto batch = PublishBatch::reusable();
        use(*batch);
        first = batch.get();
        body_storage = batch->messages.front().body.data();
    }
    const auto again = PublishBatch::reusable();
    EXPECT_EQ(again.get(), first);
    ASSERT_EQ(again->messages.size(), 1u);
    EXPECT_TRUE(again->holds.empty());
    EXPECT_FALSE(again->waiter.wait_until(Clock::now()));
    expect_empty_and_waiting(*again, body_storage);
}

TEST(ReusableBatch, StillHeldElsewhereItIsNotReused) {
    const auto held = PublishBatch::reusable();  // as the I/O thread holds an unconfirmed one
    use(*held);
    const auto next = PublishBatch::reusable();
    EXPECT_NE(next.get(), held.get());
    EXPECT_EQ(held->messages.front().body.size(), 200u);  // untouched
    EXPECT_TRUE(next->messages.front().body.empty());
}

TEST(ReusableBatch, EachThreadHasItsOwn) {
    const auto mine = PublishBatch::reusable();
    PublishBatch *theirs = nullptr;
    std::thread([&] { theirs = PublishBatch::reusable().get(); }).join();
    EXPECT_NE(theirs, mine.get());
}

Envelope job_with_payload(std::size_t payload_bytes) {
    const std::string payload = '"' + std::string(payload_bytes - 2, 'p') + '"';
    return Envelope::create("send_email", "emails", payload);
}

TEST(OutgoingMessage, ALongPayloadIsReferredToNotCopied) {
    auto job = std::make_unique<Envelope>(job_with_payload(payload_shared_from));
    ASSERT_TRUE(job->payload.is_shared());
    const std::string expected = encode_envelope(*job);
    const char *const payload_text = job->payload.c_str();
    OutgoingMessage message;
    set_message(message, "emails", *job, /*refer_payload=*/true);
    EXPECT_EQ(message.payload.c_str(), payload_text);  // the envelope's own text
    EXPECT_LT(message.body.size(), 300u);              // the head and the brace
    EXPECT_EQ(message.body.back(), '}');
    EXPECT_EQ(message.body_size(), expected.size());
    // Its envelope gone (a caller that gave up waiting), the message still has the text.
    job.reset();
    EXPECT_EQ(message.body_parts().joined(), expected);
}

TEST(OutgoingMessage, AShortOrUnsharedPayloadIsCopiedIntoTheBody) {
    const Envelope short_one = job_with_payload(payload_shared_from - 1);
    EXPECT_FALSE(short_one.payload.is_shared());
    Envelope unshared = job_with_payload(payload_shared_from);
    unshared.payload.writable() += ' ';  // written to: a string of its own
    EXPECT_FALSE(unshared.payload.is_shared());
    const Envelope long_one = job_with_payload(4096);
    const struct {
        const Envelope &job;
        bool refer_payload;
    } cases[] = {{short_one, true}, {unshared, true}, {long_one, false}};
    OutgoingMessage message;
    for (const auto &c : cases) {
        set_message(message, "emails", long_one, true);  // a referred one before
        set_message(message, "emails", c.job, c.refer_payload);
        EXPECT_TRUE(message.payload.view().empty());
        EXPECT_EQ(message.body, encode_envelope(c.job));
        EXPECT_EQ(message.body_parts().joined(), message.body);
    }
}

TEST(ReusableBatch, ABigBodyIsNotKept) {
    PublishBatch *big = nullptr;
    {
        const auto batch = PublishBatch::reusable();
        use(*batch, 1024 * 1024);
        big = batch.get();
    }
    const auto next = PublishBatch::reusable();
    EXPECT_NE(next.get(), big);
    EXPECT_LT(next->messages.front().body.capacity(), 1024u * 1024u);
}

// A job whose long payload is text that owner alone holds besides the envelope.
Envelope job_sharing(const std::shared_ptr<const char> &owner, std::size_t size) {
    Envelope job = Envelope::create("send_email", "emails", "0");
    job.payload = Payload::shared(owner, std::string_view(owner.get(), size));
    return job;
}

std::shared_ptr<const char> quoted_text(std::size_t size) {
    std::shared_ptr<char> text(new char[size], std::default_delete<char[]>());
    std::fill_n(text.get(), size, 'p');
    text.get()[0] = text.get()[size - 1] = '"';
    return text;
}

TEST(ReusablePiece, ALetGoPieceServesTheThreadsNextBatchEmptyHoldingNoPayload) {
    std::weak_ptr<const char> payload_text;
    PublishBatch *first = nullptr;
    const char *body_storage = nullptr;
    {
        const auto text = quoted_text(payload_shared_from);
        payload_text = text;
        const Envelope job = job_sharing(text, payload_shared_from);
        auto piece = PublishBatch::reusable_piece(3);
        ASSERT_EQ(piece->messages.size(), 3u);
        for (OutgoingMessage &message : piece->messages)
            set_message(message, "emails", job, /*refer_payload=*/true);
        ASSERT_TRUE(piece->messages.front().payload.is_shared());
        for (std::size_t i = 0; i < 3; ++i) piece->waiter.complete(i, {QY_OK, ""});
        ASSERT_TRUE(piece->claim.start());
        first = piece.get();
        body_storage = piece->messages.front().body.data();
        PublishBatch::keep_piece(std::move(piece));
    }
    EXPECT_TRUE(payload_text.expired());  // the kept piece holds none of its payloads
    const auto next = PublishBatch::reusable_piece(2);
    EXPECT_EQ(next.get(), first);
    ASSERT_EQ(next->messages.size(), 2u);
    expect_empty_and_waiting(*next, body_storage);
    // Taken: the thread's next batch gets another.
    EXPECT_NE(PublishBatch::reusable_piece(1).get(), first);
}

TEST(ReusablePiece, OneStillHeldElsewhereOrBigIsNotKept) {
    auto held = PublishBatch::reusable_piece(1);
    const auto io_threads_copy = held;  // as the I/O thread holds one its caller gave up on
    use(*held);
    PublishBatch::keep_piece(std::move(held));
    EXPECT_NE(PublishBatch::reusable_piece(1).get(), io_threads_copy.get());
    EXPECT_EQ(io_threads_copy->messages.front().body.size(), 200u);  // untouched

    // Too big to hold while idle; its memory may come back as a new piece, told apart by
    // what it holds.
    auto many = PublishBatch::reusable_piece(1025);
    use(*many);
    PublishBatch::keep_piece(std::move(many));
    EXPECT_LT(PublishBatch::reusable_piece(1)->messages.capacity(), 1025u);

    auto big_body = PublishBatch::reusable_piece(1);
    use(*big_body, 1024 * 1024);
    PublishBatch::keep_piece(std::move(big_body));
    EXPECT_LT(PublishBatch::reusable_piece(1)->messages.front().body.capacity(), 1024u * 1024u);
}

// A full piece of small jobs, as a batch of 1,024 of them is cut (batch_pieces.hpp): kept,
// and within the bound queuey.h states.
TEST(ReusablePiece, AFullPieceOfSmallJobsIsKeptWithinItsBound) {
    for (const std::size_t payload_bytes : {16u, 700u, 1000u}) {
        SCOPED_TRACE(payload_bytes);
        PublishBatch::release_kept();  // nothing kept but this piece
        const Envelope job = job_with_payload(payload_bytes);
        auto piece = PublishBatch::reusable_piece(PublishBatch::most_kept_piece_messages);
        for (OutgoingMessage &message : piece->messages)
            set_message(message, "emails", job, /*refer_payload=*/true);
        const std::weak_ptr<PublishBatch> kept = piece;
        const std::size_t bytes = piece->kept_bytes();
        std::printf("a piece of 1024 jobs of %zu bytes of payload keeps %zu bytes\n", payload_bytes,
                    bytes);
        EXPECT_GT(bytes, PublishBatch::most_kept_piece_messages * payload_bytes);
        EXPECT_LE(bytes, PublishBatch::most_kept_piece_bytes);
        PublishBatch::keep_piece(std::move(piece));
        EXPECT_FALSE(kept.expired());
        EXPECT_EQ(PublishBatch::kept_here_bytes(), bytes);
    }
    PublishBatch::release_kept();
}

// Reused batch after batch, each message keeps the largest body it ever had: bodies of
// 64 KiB at most, but not 1,024 of them.
TEST(ReusablePiece, OneOfManyBodiesUnder64KiBThatAddUpPastTheBoundIsNotKept) {
    auto piece = PublishBatch::reusable_piece(64);
    for (OutgoingMessage &message : piece->messages) message.body.assign(60 * 1024, 'x');
    ASSERT_GT(piece->kept_bytes(), PublishBatch::most_kept_piece_bytes);
    const std::weak_ptr<PublishBatch> big = piece;
    PublishBatch::keep_piece(std::move(piece));
    EXPECT_TRUE(big.expired());
}

// What a thread keeps between publishes, and qy_release_thread_memory's release of it.
TEST(ReleaseKept, FreesTheThreadsBatchAndPiece) {
    std::weak_ptr<PublishBatch> batch_left;
    std::weak_ptr<PublishBatch> piece_left;
    {
        const auto batch = PublishBatch::reusable();
        use(*batch);
        batch_left = batch;
        auto piece = PublishBatch::reusable_piece(3);
        use(*piece);
        piece_left = piece;
        PublishBatch::keep_piece(std::move(piece));
    }
    ASSERT_FALSE(batch_left.expired());
    ASSERT_FALSE(piece_left.expired());
    EXPECT_GT(PublishBatch::kept_here_bytes(), 2 * 200u);  // both bodies at least
    PublishBatch::release_kept();
    EXPECT_TRUE(batch_left.expired());
    EXPECT_TRUE(piece_left.expired());
    EXPECT_EQ(PublishBatch::kept_here_bytes(), 0u);
    PublishBatch::release_kept();  // nothing kept: a no-op
    EXPECT_EQ(PublishBatch::kept_here_bytes(), 0u);
    // The next publish takes a new batch, kept again.
    EXPECT_EQ(PublishBatch::reusable()->messages.size(), 1u);
    EXPECT_GT(PublishBatch::kept_here_bytes(), 0u);
}

TEST(ReleaseKept, ABatchTheIOThreadStillHoldsIsFreedByIt) {
    auto io_threads_copy = PublishBatch::reusable();  // unconfirmed
    use(*io_threads_copy);
    const std::weak_ptr<PublishBatch> left = io_threads_copy;
    PublishBatch::release_kept();
    ASSERT_FALSE(left.expired());
    EXPECT_EQ(io_threads_copy->messages.front().body.size(), 200u);  // untouched
    // Confirmed: the I/O thread lets go of it.
    io_threads_copy.reset();
    EXPECT_TRUE(left.expired());
}

TEST(ReleaseKept, OnlyTheCallingThreadsOwnAndANewThreadKeepsNothing) {
    std::weak_ptr<PublishBatch> mine;
    {
        const auto batch = PublishBatch::reusable();
        use(*batch);
        mine = batch;
    }
    std::size_t new_threads_bytes = 1;
    std::thread([&] {
        new_threads_bytes = PublishBatch::kept_here_bytes();
        static_cast<void>(PublishBatch::reusable());
        PublishBatch::release_kept();
    }).join();
    EXPECT_EQ(new_threads_bytes, 0u);
    EXPECT_FALSE(mine.expired());
    PublishBatch::release_kept();
    EXPECT_TRUE(mine.expired());
}

}  // namespace
}  // namespace queuey
