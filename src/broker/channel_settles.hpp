// What a consumer channel still owes the broker, by delivery tag: the deliveries not
// settled yet, and the acks not sent yet, each with its message id (handed back as this
// process's own redeliveries when the channel is lost). The broker numbers deliveries
// 1, 2, 3, ... on a channel, so the tags arrive in order and the entries stay sorted in
// a deque: a delivery and its settle cost no node of a tree. Settled entries go as the
// front is settled, or, behind a delivery left unsettled at the front (a long job), once
// they outnumber the others. Used by the session's holder only (rabbit_connection.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace queuey {

class ChannelSettles {
public:
    using Clock = std::chrono::steady_clock;

    // A delivery was read at arrived; tags only grow on a channel.
    void delivered(std::uint64_t tag, std::string message_id, Clock::time_point arrived = {});
    bool unsettled(std::uint64_t tag) const;
    std::size_t unsettled_count() const { return unsettled_; }
    // Behind a delivery left unsettled, settled entries are kept up to this many beyond
    // what the channel owes before they are swept.
    static constexpr std::size_t sweep_slack = 64;
    // Entries held, settled ones included: at most twice what the channel owes, plus
    // sweep_slack.
    std::size_t held() const { return entries_.size(); }
    // Settles an unsettled delivery (false for any other tag): an ack waits for
    // send_acks, a reject is settled by the caller on the wire at once.
    bool settle(std::uint64_t tag, bool ack);

    // Sends the acks not sent yet: those below the lowest unsettled tag as one
    // ack(multiple) (ack(tag, true)) -- rejects went out already, in order, so it touches no
    // job still in progress -- the others one by one (ack(tag, false)).
    template <typename Ack>
    void send_acks(Ack ack);

    // The channel is gone: every message id it still held goes to record(id, unsettled,
    // arrived), unsettled or acked unsent (false); nothing is left.
    template <typename Record>
    void hand_back(Record record);

private:
    enum class State { unsettled, acked, done };
    struct Entry {
        std::uint64_t tag;
        State state;
        std::string message_id;
        Clock::time_point arrived;
    };
    void drop_done();

    std::deque<Entry> entries_;  // in tag order
    std::size_t unsettled_ = 0;
    std::size_t acked_ = 0;
};

template <typename Ack>
void ChannelSettles::send_acks(Ack ack) {
    if (acked_ == 0) return;
    // The last ack below the first unsettled delivery, and how many acks lie there.
    std::size_t below = 0;
    std::uint64_t last_below = 0;
    for (const Entry &entry : entries_) {
        if (entry.state == State::unsettled) break;
        if (entry.state == State::acked) {
            ++below;
            last_below = entry.tag;
        }
    }
    if (below > 0) ack(last_below, below > 1);
    for (Entry &entry : entries_) {
        if (entry.state == State::acked && entry.tag > last_below) ack(entry.tag, false);
        if (entry.state == State::acked) {
            entry.state = State::done;
            entry.message_id = {};
        }
    }
    acked_ = 0;
    drop_done();
}

template <typename Record>
void ChannelSettles::hand_back(Record record) {
    for (const Entry &entry : entries_)
        if (entry.state != State::done)
            record(entry.message_id, entry.state == State::unsettled, entry.arrived);
    entries_.clear();
    unsettled_ = 0;
    acked_ = 0;
}

}  // namespace queuey
