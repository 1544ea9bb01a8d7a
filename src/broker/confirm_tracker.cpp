#include "confirm_tracker.hpp"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace queuey {

namespace {

constexpr std::uint16_t no_route_reply_code = 312;  // AMQP NO_ROUTE: no queue by that name

void complete(const std::shared_ptr<PublishWaiter> &waiter, std::size_t index,
              PublishOutcome outcome) {
    if (waiter) waiter->complete(index, std::move(outcome));
}

}  // namespace

std::uint64_t ConfirmTracker::published(std::string_view message_id,
                                        std::shared_ptr<PublishWaiter> waiter, std::size_t index,
                                        std::string_view routing_key, std::size_t body_size) {
    const std::uint64_t tag = next_tag_++;
    outstanding_.push_back(
        Pending{tag, message_id, routing_key, std::move(waiter), index, body_size, false, {}});
    return tag;
}

void ConfirmTracker::returned(std::string_view message_id, std::uint16_t reply_code,
                              std::string_view reply_text, std::string_view routing_key) {
    // The return precedes the ack that covers its publish, so that publish is still
    // outstanding; among several with the same id, the earliest is the one the broker is
    // answering (it handles a channel's publishes in order).
    const auto it = std::find_if(outstanding_.begin(), outstanding_.end(), [&](const Pending &p) {
        return !p.returned && p.message_id == message_id &&
               (routing_key.empty() || p.routing_key.empty() || p.routing_key == routing_key);
    });
    if (it == outstanding_.end()) return;  // not ours (or already settled): nothing to attribute
    it->returned = true;
    it->return_reason = std::to_string(reply_code);
    it->return_reason += ' ';
    it->return_reason += reply_text;
    // The broker's text says nothing of the queue: name it, and what to do about it.
    if (reply_code == no_route_reply_code && !it->routing_key.empty())
        it->return_reason +=
            ": there is no queue '" + std::string(it->routing_key) + "' (declare it first)";
}

template <typename Outcome>
void ConfirmTracker::settle_through(std::uint64_t tag, bool multiple, Outcome outcome_of) {
    // Take the settled publishes out first: a waiter's complete() then never sees the
    // tracker half-updated.
    if (!multiple) {
        // Tags are increasing, so a binary search finds the one publish (mostly the
        // first); an ack for a tag that is not outstanding (settled already, or never
        // sent) is ignored.
        const auto it =
            !outstanding_.empty() && outstanding_.front().tag == tag
                ? outstanding_.begin()
                : std::lower_bound(outstanding_.begin(), outstanding_.end(), tag,
                                   [](const Pending &p, std::uint64_t t) { return p.tag < t; });
        if (it == outstanding_.end() || it->tag != tag) return;
        const Pending settled = std::move(*it);
        if (it == outstanding_.begin())
            outstanding_.pop_front();
        else
            outstanding_.erase(it);
        complete(settled.waiter, settled.index, outcome_of(settled));
        return;
    }
    // AMQP 0-9-1: multiple with tag 0 means every outstanding publish.
    const auto end = tag == 0 ? outstanding_.end()
                              : std::find_if(outstanding_.begin(), outstanding_.end(),
                                             [&](const Pending &p) { return p.tag > tag; });
    // A vector: a deque allocates its map and a block even for one.
    std::vector<Pending> settled(std::make_move_iterator(outstanding_.begin()),
                                 std::make_move_iterator(end));
    outstanding_.erase(outstanding_.begin(), end);
    for (const Pending &p : settled) complete(p.waiter, p.index, outcome_of(p));
}

void ConfirmTracker::acked(std::uint64_t tag, bool multiple) {
    settle_through(tag, multiple, [](const Pending &p) {
        if (!p.returned) return PublishOutcome{QY_OK, {}};
        return PublishOutcome{QY_ERR_UNROUTABLE,
                              "publish of message " + std::string(p.message_id) +
                                  " was returned by the broker: " + p.return_reason};
    });
}

void ConfirmTracker::nacked(std::uint64_t tag, bool multiple) {
    settle_through(tag, multiple, [](const Pending &p) {
        return PublishOutcome{QY_ERR_NACKED, "publish of message " + std::string(p.message_id) +
                                                 " was refused by the broker (basic.nack)"};
    });
}

void ConfirmTracker::fail_all(qy_status status, const std::string &message) {
    std::deque<Pending> failed;
    failed.swap(outstanding_);
    for (const Pending &p : failed) complete(p.waiter, p.index, PublishOutcome{status, message});
}

void ConfirmTracker::closed_over(std::size_t body_size, PublishOutcome culprit,
                                 const std::string &reason) {
    std::deque<Pending> failed;
    failed.swap(outstanding_);
    const auto guilty = std::find_if(failed.begin(), failed.end(),
                                     [&](const Pending &p) { return p.body_size == body_size; });
    const std::string unknown =
        "the broker closed the publishing channel before confirming this "
        "publish, because of another one (" +
        reason + "); the job may or may not have been accepted";
    const std::string dropped =
        "not sent: the broker dropped it unread after closing the "
        "publishing channel because of an earlier publish (" +
        reason + "); the job is not in the queue";
    for (auto it = failed.begin(); it != failed.end(); ++it) {
        if (guilty == failed.end() || it < guilty)
            complete(it->waiter, it->index, {QY_ERR_CONNECTION, unknown});
        else if (it == guilty)
            complete(it->waiter, it->index, culprit);
        else
            complete(it->waiter, it->index, {QY_ERR_NOT_SENT, dropped});
    }
}

void ConfirmTracker::reset() {
    // Tags of the old channel mean nothing on the new one: anything still outstanding
    // could never be confirmed, so it fails rather than being matched to a new tag.
    fail_all(QY_ERR_CONNECTION,
             "the channel was replaced before the broker confirmed the publish; it may or may "
             "not have been accepted");
    next_tag_ = 1;
}

}  // namespace queuey
