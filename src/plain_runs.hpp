// Stretches of a body known, from when it was copied, to hold plain ASCII bytes only: none
// of '"', '\\', a byte below 0x20 or one from 0x80 up. A megabyte payload's scan for the
// end of its string is most of what decoding it costs, and a second read of a body that
// left the cache long ago (prefetch holds several); the copy out of rabbitmq-c's frames
// (arriving_contents.cpp) reads every byte anyway, so it notes the runs there and the
// decoder steps over them (compact_json.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace queuey {

struct PlainRun {
    std::size_t begin = 0, end = 0;  // offsets into the body
};

class PlainRuns {
public:
    // Shorter runs are not noted: their scan costs little, and the list stays short.
    static constexpr std::size_t shortest = 4096;

    // Copies size bytes from `from` to body + offset, and notes the runs of whole plain
    // 32-byte blocks among them (counted from `from`) where the CPU has AVX2; elsewhere it
    // only copies. The pieces in order, each after the one before; a piece's runs end
    // with it.
    void copy(char *body, std::size_t offset, const char *from, std::size_t size);

    // Sorted by offset, none overlapping.
    const std::vector<PlainRun> &runs() const { return runs_; }

private:
    std::vector<PlainRun> runs_;
};

// Steps over a body's plain runs while it is read front to back.
class PlainRunSkipper {
public:
    PlainRunSkipper(const char *body, const PlainRuns &runs)
        : body_(body), next_(runs.runs().begin()), end_(runs.runs().end()) {}

    // Moves `at` past the run it lies in, if any, and returns where the next run begins,
    // or end: the bytes from `at` up to there are to be read.
    const char *step(const char *&at, const char *end) {
        while (next_ != end_ && body_ + next_->end <= at) ++next_;
        if (next_ == end_) return end;
        if (body_ + next_->begin <= at) {
            at = body_ + next_->end;
            if (++next_ == end_) return end;
        }
        return std::min(end, body_ + next_->begin);
    }

private:
    const char *body_;
    std::vector<PlainRun>::const_iterator next_, end_;
};

}  // namespace queuey
