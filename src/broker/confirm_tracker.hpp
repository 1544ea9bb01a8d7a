// Publisher confirms on one channel with many publishes in flight, attributed exactly.
//
// The broker numbers publishes on a channel in confirm mode 1, 2, 3, ... A basic.return
// (unroutable mandatory publish) carries no delivery tag, only the message; it always
// arrives before the basic.ack that covers that publish. So a return is recorded
// against the earliest outstanding publish with the returned message-id and routing key
// (the same job may be in flight to two queues at once), and an ack
// (possibly `multiple`) completes everything up to its tag: failed where returned,
// succeeded otherwise. This is what lets a batch keep many publishes in flight without
// losing track of which one the broker returned.
#pragma once

#include "publish_waiter.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

namespace queuey {

class ConfirmTracker {
public:
    // A publish that was just written; returns its delivery tag. routing_key: the queue it
    // was published to ("" matches any return with its id). Both are views, kept until
    // the publish is settled: the waiter must keep what they view alive (a batch's waiter
    // keeps its batch, publish_batch.hpp), so a publish copies no string here.
    std::uint64_t published(std::string_view message_id, std::shared_ptr<PublishWaiter> waiter,
                            std::size_t index, std::string_view routing_key = {},
                            std::size_t body_size = 0);
    // basic.return: the earliest outstanding, not yet returned publish with this id (and
    // this routing key, unless either is "").
    void returned(std::string_view message_id, std::uint16_t reply_code, std::string_view reply_text,
                  std::string_view routing_key = {});
    // basic.ack / basic.nack for tag (and every earlier one when multiple).
    void acked(std::uint64_t tag, bool multiple);
    void nacked(std::uint64_t tag, bool multiple);
    // The channel or connection is gone: every outstanding publish fails with status.
    void fail_all(qy_status status, const std::string &message);
    // The broker closed the channel over one publish: the earliest outstanding one whose
    // body has body_size bytes, which fails with culprit. The broker handled the channel's
    // publishes in order: those before it were taken, their confirms lost (outcome
    // unknown: QY_ERR_CONNECTION); those after it were dropped unread (QY_ERR_NOT_SENT).
    // Without such a publish, every outcome is unknown. Each message says why.
    void closed_over(std::size_t body_size, PublishOutcome culprit, const std::string &reason);
    // A new channel in confirm mode starts counting at 1 again (after fail_all).
    void reset();

    std::size_t outstanding() const { return outstanding_.size(); }

private:
    struct Pending {
        std::uint64_t tag;
        std::string_view message_id;
        std::string_view routing_key;
        std::shared_ptr<PublishWaiter> waiter;
        std::size_t index;
        std::size_t body_size;
        bool returned = false;
        std::string return_reason;
    };
    template <typename Outcome>
    void settle_through(std::uint64_t tag, bool multiple, Outcome outcome_of);

    std::deque<Pending> outstanding_;  // in tag order
    std::uint64_t next_tag_ = 1;
};

}  // namespace queuey
