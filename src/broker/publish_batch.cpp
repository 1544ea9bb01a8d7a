#include "publish_batch.hpp"

#include "../envelope_codec.hpp"

#include <atomic>

namespace queuey {

namespace {

// A body bigger than this is not kept for the thread's next publish: a thread that once
// sent a big payload would hold its memory for good.
constexpr std::size_t largest_kept_body = 64 * 1024;

}  // namespace

std::shared_ptr<PublishBatch> PublishBatch::reusable() {
    thread_local std::shared_ptr<PublishBatch> kept_here;
    std::shared_ptr<PublishBatch> &kept = kept_here;  // one look-up of the thread's storage
    if (!kept || kept.use_count() != 1 ||
        kept->messages.front().body.capacity() > largest_kept_body) {
        kept = std::make_shared<PublishBatch>(1);
        return kept;
    }
    // The count fell to one when the I/O thread let go of its last copy (a release): all
    // it did with the batch happened before what follows.
    std::atomic_thread_fence(std::memory_order_acquire);
    OutgoingMessage &message = kept->messages.front();
    message.queue.clear();
    message.properties.headers.clear();
    message.body.clear();
    kept->waiter.reset(1);
    kept->claim.reset();
    kept->holds.clear();
    return kept;
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
