#include "batch_pieces.hpp"

#include <iterator>

namespace queuey {

namespace {

// An envelope's fields besides its payload, about, as encoded: its id, type, queue,
// counters and keys.
constexpr std::size_t fields_besides_payload = 256;

}  // namespace

std::size_t next_piece_size(EnvelopeRefs rest) {
    std::size_t count = 0;
    std::size_t bytes = 0;
    for (const Envelope *envelope : rest) {
        bytes += envelope->payload.size() + fields_besides_payload;
        if (count != 0 && bytes > piece_bytes) break;
        ++count;
    }
    return count;
}

void UnconfirmedPieces::add(std::shared_ptr<PublishBatch> piece) {
    std::size_t bytes = 0;
    for (const OutgoingMessage &message : piece->messages) bytes += message.body_size();
    bytes_ += bytes;
    pieces_.push_back({std::move(piece), bytes});
}

bool UnconfirmedPieces::take_oldest(std::chrono::steady_clock::time_point deadline,
                                    std::vector<PublishOutcome> &outcomes,
                                    const std::function<PublishOutcome(PublishBatch &)> &late) {
    Held oldest = std::move(pieces_.front());
    pieces_.pop_front();
    bytes_ -= oldest.bytes;
    PublishWaiter &waiter = oldest.piece->waiter;
    const bool in_time = waiter.wait_until(deadline);
    std::vector<PublishOutcome> taken =
        in_time ? waiter.take_outcomes() : waiter.outcomes_or(late(*oldest.piece));
    outcomes.insert(outcomes.end(), std::make_move_iterator(taken.begin()),
                    std::make_move_iterator(taken.end()));
    PublishBatch::keep_piece(std::move(oldest.piece));  // its memory serves the next batch
    return in_time;
}

}  // namespace queuey
