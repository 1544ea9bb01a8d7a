#include "channel_settles.hpp"

#include <algorithm>

namespace queuey {

namespace {

// The entry of tag in entries (sorted by tag), or nullptr.
template <typename Entries>
auto *entry_of(Entries &entries, std::uint64_t tag) {
    const auto at =
        std::lower_bound(entries.begin(), entries.end(), tag,
                         [](const auto &entry, std::uint64_t t) { return entry.tag < t; });
    return at != entries.end() && at->tag == tag ? &*at : nullptr;
}

}  // namespace

void ChannelSettles::delivered(std::uint64_t tag, std::string message_id,
                               Clock::time_point arrived) {
    entries_.push_back({tag, State::unsettled, std::move(message_id), arrived});
    ++unsettled_;
}

bool ChannelSettles::unsettled(std::uint64_t tag) const {
    const Entry *entry = entry_of(entries_, tag);
    return entry && entry->state == State::unsettled;
}

bool ChannelSettles::settle(std::uint64_t tag, bool ack) {
    Entry *entry = entry_of(entries_, tag);
    if (!entry || entry->state != State::unsettled) return false;
    --unsettled_;
    if (ack) {
        entry->state = State::acked;
        ++acked_;
        return true;
    }
    entry->state = State::done;
    entry->message_id = {};
    drop_done();
    return true;
}

void ChannelSettles::drop_done() {
    while (!entries_.empty() && entries_.front().state == State::done) entries_.pop_front();
    // Amortised: a sweep leaves at most half of what it found.
    if (entries_.size() > 2 * (unsettled_ + acked_) + sweep_slack)
        std::erase_if(entries_, [](const Entry &entry) { return entry.state == State::done; });
}

}  // namespace queuey
