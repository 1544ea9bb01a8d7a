// A consumer's own deliveries (docs/broker.md): on a connection whose socket owes only
// deliveries, the I/O thread leaves the socket to its consumers, and a consumer that
// finds its deliveries taken reads the socket itself, on a lend of the session. One that
// cannot borrow waits; whoever ends what kept it out (a lend given back, the I/O thread
// going to sleep) nudges it to read. A queue that two threads take from at once is
// shared: its consumers wait for the I/O thread, which reads for them all.
#include "rabbit_connection.hpp"

#include <algorithm>

namespace queuey {

std::optional<IncomingDelivery> RabbitConnection::next_delivery(DeliveryQueue &sink,
                                                                Clock::time_point deadline) {
    const DeliveryQueue::Taking taking(sink);
    constexpr auto now_or_never = Clock::time_point::min();
    for (;;) {
        // Each reader would take the lend from the other, and wake with each settle of
        // the other: several threads are better served by the I/O thread. Looked at on
        // every round: a queue becomes shared while one of its consumers reads.
        if (sink.shared()) return sink.pop(deadline);
        if (auto delivery = sink.pop(now_or_never)) return delivery;
        const bool read = read_deliveries_while_io_sleeps(sink, deadline);
        if (Clock::now() >= deadline) return sink.pop(now_or_never);
        if (read) continue;
        // Refused: the I/O thread reads, or another consumer, or this one once nudged.
        if (auto delivery = sink.pop(deadline)) return delivery;
        if (Clock::now() >= deadline) return std::nullopt;
    }
}

bool RabbitConnection::read_deliveries_while_io_sleeps(DeliveryQueue &sink,
                                                       Clock::time_point deadline) {
    Lend lend;
    if (!borrow_session(Borrower::consumer, lend)) return false;
    std::exception_ptr failure;
    try {
        // The acks its settles left waiting go first: the broker counts them against the
        // prefetch, and would send no more deliveries for them.
        send_acks();
        // A queue that became shared hands what this one reads to the consumers waiting
        // on it: this one stops reading, and waits with them.
        read_while_lent(deadline, [&] { return !sink.empty() || sink.shared(); });
    } catch (...) {
        failure = std::current_exception();
    }
    // What this one read may leave another without a delivery: give_session_back nudges it.
    give_session_back(std::move(failure), lend,
                      [&]() QY_REQUIRES(lending_.mutex()) { ++counters_.read_by_consumer; });
    return true;
}

namespace {

// The consumers of a shared queue wait for the I/O thread to the end.
bool waits_for_a_nudge(DeliveryQueue &sink) { return !sink.shared() && sink.wants_nudge(); }

}  // namespace

void RabbitConnection::note_consumers_to_nudge() {
    nudge_candidates_.clear();  // keeps its capacity: no allocation per sleep
    for (const auto &subscription : subscriptions_)
        nudge_candidates_.push_back(subscription->deliveries);
}

std::shared_ptr<DeliveryQueue> RabbitConnection::noted_consumer_waiting() const {
    for (const auto &sink : nudge_candidates_)
        if (waits_for_a_nudge(*sink)) return sink;
    return nullptr;
}

std::shared_ptr<DeliveryQueue> RabbitConnection::consumer_left_waiting() const {
    for (const auto &subscription : subscriptions_)
        if (waits_for_a_nudge(*subscription->deliveries)) return subscription->deliveries;
    return nullptr;
}

bool RabbitConnection::socket_owes_only_deliveries() const {
    if (subscriptions_.empty() || !borrowed_.empty() || tracker_.outstanding() != 0 ||
        !declares_.empty())
        return false;
    return std::all_of(subscriptions_.begin(), subscriptions_.end(), [](const auto &subscription) {
        return subscription->channel_open && !subscription->cancelled_by_broker &&
               !subscription->deliveries->shared();
    });
}

}  // namespace queuey
