#include "publish_batch.hpp"

#include "../envelope_codec.hpp"

#include <algorithm>
#include <atomic>

namespace queuey {

namespace {

// A body bigger than this is not kept for the thread's next publish: a thread that once
// sent a big payload would hold its memory for good.
constexpr std::size_t largest_kept_body = 64 * 1024;
// Nor a piece of more messages than this (about 1 KiB each, with their strings): what an
// idle thread holds for its next batch stays about a megabyte.
constexpr std::size_t most_kept_piece_messages = 1024;

// The thread's piece for its next batch (keep_piece), if any.
thread_local std::shared_ptr<PublishBatch> kept_piece;

// A batch that nobody else holds any more, emptied for count messages: its strings and
// vectors keep their capacity.
void empty_for(PublishBatch &batch, std::size_t count) {
    // The count fell to one when the I/O thread let go of its last copy (a release): all
    // it did with the batch happened before what follows.
    std::atomic_thread_fence(std::memory_order_acquire);
    batch.messages.resize(count);
    for (OutgoingMessage &message : batch.messages) {
        message.queue.clear();
        message.properties.headers.clear();
        message.body.clear();
        message.payload = Payload();
    }
    batch.waiter.reset(count);
    batch.claim.reset();
    batch.holds.clear();
}

}  // namespace

std::shared_ptr<PublishBatch> PublishBatch::reusable() {
    thread_local std::shared_ptr<PublishBatch> kept_here;
    std::shared_ptr<PublishBatch> &kept = kept_here;  // one look-up of the thread's storage
    if (!kept || kept.use_count() != 1 ||
        kept->messages.front().body.capacity() > largest_kept_body) {
        kept = std::make_shared<PublishBatch>(1);
        return kept;
    }
    empty_for(*kept, 1);
    return kept;
}

std::shared_ptr<PublishBatch> PublishBatch::reusable_piece(std::size_t count) {
    std::shared_ptr<PublishBatch> piece = std::move(kept_piece);
    if (!piece) return std::make_shared<PublishBatch>(count);
    empty_for(*piece, count);
    return piece;
}

void PublishBatch::keep_piece(std::shared_ptr<PublishBatch> piece) {
    // Still held by the I/O thread (a piece its caller gave up on), or too big to hold.
    if (piece.use_count() != 1 || piece->messages.size() > most_kept_piece_messages) return;
    std::atomic_thread_fence(std::memory_order_acquire);  // as empty_for
    std::vector<OutgoingMessage> &messages = piece->messages;
    if (std::any_of(messages.begin(), messages.end(), [](const OutgoingMessage &message) {
            return message.body.capacity() > largest_kept_body;
        }))
        return;
    // None of its caller's payloads held while kept.
    for (OutgoingMessage &message : messages) message.payload = Payload();
    kept_piece = std::move(piece);
}

void set_message(OutgoingMessage &message, std::string_view queue, const Envelope &env,
                 bool refer_payload) {
    message.queue.assign(queue);
    set_publish_properties(env, message.properties);
    message.body.clear();
    if (refer_payload && env.payload.is_shared() && env.payload.size() >= payload_shared_from) {
        encode_envelope_head(env, message.body);
        message.body += envelope_tail;
        message.payload = env.payload;
    } else {
        encode_envelope(env, message.body);
        message.payload = Payload();
    }
}

void PublishBatch::fail_from(std::size_t first, const Error &error) {
    for (std::size_t i = first; i < messages.size(); ++i)
        waiter.complete(i, {error.status(), error.what()});
}

void PublishBatch::unsent_from(std::size_t first, const Error &error) {
    fail_from(first, Error(error.status(), "", std::string("not sent: ") + error.what()));
}

}  // namespace queuey
