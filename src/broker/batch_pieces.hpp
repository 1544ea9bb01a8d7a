// A batch of jobs goes to the broker in pieces (docs/broker.md, "A big batch goes in
// pieces"): the caller encodes a piece while the broker confirms those before it, and
// holds at most a window of unconfirmed bodies. Three hundred 1 MiB jobs then reuse the
// memory of the pieces confirmed before them instead of taking fresh pages from the
// kernel for every body at once (a page fault each 4 KiB), and a batch's memory is
// bounded whatever its size.
#pragma once

#include "../backend.hpp"
#include "publish_batch.hpp"

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace queuey {

// A piece's bodies take about this many bytes, and it has at least one job.
inline constexpr std::size_t piece_bytes = std::size_t{1} << 20;
// The caller hands over no further piece while this many bytes of bodies are
// unconfirmed: it takes the oldest piece's outcomes first.
inline constexpr std::size_t unconfirmed_window_bytes = std::size_t{16} << 20;

// How many of the envelopes at the front of rest go in the next piece: as many as fit in
// piece_bytes by their payloads and the rest of their fields, at least one.
std::size_t next_piece_size(EnvelopeRefs rest);

// The pieces handed to the connection whose outcomes the caller has not taken yet, oldest
// first.
class UnconfirmedPieces {
public:
    void add(std::shared_ptr<PublishBatch> piece);
    bool empty() const { return pieces_.empty(); }
    // Bytes of bodies in the pieces held.
    std::size_t bytes() const { return bytes_; }
    // Waits for the oldest piece's outcomes until deadline, appends them to outcomes and
    // lets the piece go (its memory serves the next). An outcome that did not come in
    // time is late(piece)'s, and false is returned.
    bool take_oldest(std::chrono::steady_clock::time_point deadline,
                     std::vector<PublishOutcome> &outcomes,
                     const std::function<PublishOutcome(PublishBatch &)> &late);

private:
    struct Held {
        std::shared_ptr<PublishBatch> piece;
        std::size_t bytes;
    };
    std::deque<Held> pieces_;
    std::size_t bytes_ = 0;
};

}  // namespace queuey
