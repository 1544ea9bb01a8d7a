// The publishes one caller hands to the I/O thread at once, and what answers for each:
// one allocation per call, shared by the caller who waits and the I/O thread that writes.
#pragma once

#include "../amqp_properties.hpp"
#include "../envelope_codec.hpp"
#include "../error.hpp"
#include "../payload.hpp"
#include "../topology.hpp"
#include "body_parts.hpp"
#include "command_claim.hpp"
#include "publish_waiter.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace queuey {

struct OutgoingMessage {
    OutgoingMessage() = default;
    // A body in one piece (a dead letter's copy, a lost run's requeue).
    OutgoingMessage(std::string queue, AmqpProperties properties, std::string body)
        : queue(std::move(queue)), properties(std::move(properties)), body(std::move(body)) {}

    std::string queue;  // routed by the default exchange
    AmqpProperties properties;
    // The body: body alone or, with a payload (set_message), the envelope's head and tail
    // in body and the payload's text between them. The payload is shared, not copied: its
    // text stays put while frames refer to it (outgoing_bytes.hpp), whatever its
    // envelope's owner does meanwhile.
    std::string body;
    Payload payload;

    BodyParts body_parts() const {
        if (payload.view().empty()) return BodyParts(body);
        const std::string_view own = body;
        const std::size_t head = own.size() - envelope_tail.size();
        return {own.substr(0, head), payload.view(), own.substr(head)};
    }
    std::size_t body_size() const { return body.size() + payload.size(); }
};

// message becomes env's publish to queue, written over what it held: its strings and
// vectors keep their capacity (a reused batch's message allocates nothing). With
// refer_payload, a shared payload of payload_shared_from bytes or more is referred to
// (held by the message until it goes) instead of copied into body: not in a thread's
// reused batch, which would hold it until the thread's next publish.
void set_message(OutgoingMessage &message, std::string_view queue, const Envelope &env,
                 bool refer_payload);

// The hold queues a batch publishes into, declared first unless declared lately: shared,
// as a consumer keeps each of its holds for every retry into it (consumed_queue.hpp).
using HoldSpecs = std::vector<std::shared_ptr<const QueueSpec>>;

// A vector of one item moved in: a braced list would copy it (strings and all).
template <typename T>
std::vector<T> vector_of_one(T item) {
    std::vector<T> items;
    items.push_back(std::move(item));
    return items;
}

struct PublishBatch {
    // What a thread keeps between its publishes (release_kept frees it; queuey.h,
    // "Memory kept between calls", states these numbers):
    // - the batch of one of reusable(), unless its body grew past largest_kept_body (a
    //   thread that once sent a big payload would hold its memory for good);
    static constexpr std::size_t largest_kept_body = 64 * 1024;
    // - the piece of keep_piece(), unless it has more than most_kept_piece_messages
    //   messages, a body past largest_kept_body or more than most_kept_piece_bytes in all
    //   (kept_bytes). A piece of 1,024 jobs takes about 1.3 KiB a job besides its
    //   payloads (the message's slot, its header vector of max_headers, its body's head):
    //   1.3 MiB with payloads of 16 bytes, 1.9 MiB of 700 (publish_batch_test). The
    //   fullest piece batch_pieces.hpp cuts (1,024 jobs, payloads of 768 bytes, copied
    //   below payload_shared_from) takes about 2.1 MiB, within the bound; a piece reused
    //   for batches of mixed sizes, each message keeping its largest body, is not.
    static constexpr std::size_t most_kept_piece_messages = 1024;
    static constexpr std::size_t most_kept_piece_bytes = 5 * 512 * 1024;  // 2.5 MiB

    // count messages, each filled in by the caller before it publishes the batch.
    explicit PublishBatch(std::size_t count) : messages(count), waiter(count) {}
    explicit PublishBatch(std::vector<OutgoingMessage> messages)
        : messages(std::move(messages)), waiter(this->messages.size()) {}

    // A batch of one message for the calling thread, its strings and vectors emptied but
    // keeping their capacity: the thread's batch from its last publish when nobody holds
    // it any more (the I/O thread lets go of it once it is confirmed), else a new one. A
    // job published one at a time then allocates nearly nothing on its way.
    static std::shared_ptr<PublishBatch> reusable();
    // A piece of count messages of a batch (batch_pieces.hpp) for the calling thread,
    // empty and waiting: the piece it kept last (keep_piece), else a new one. A thread
    // that publishes batch after batch then allocates no strings or vectors per job.
    static std::shared_ptr<PublishBatch> reusable_piece(std::size_t count);
    // Its caller took the piece's outcomes: kept for the thread's next reusable_piece,
    // emptied (none of its payloads held), unless another holds it too or it is big.
    static void keep_piece(std::shared_ptr<PublishBatch> piece);
    // The calling thread lets go of its batch of one and its kept piece: freed now, or by
    // the I/O thread when it lets go of a batch it still holds. Its next publish takes
    // new ones (qy_release_thread_memory).
    static void release_kept();
    // The same for every thread at once, from any thread (qy_release_cached_memory): a
    // thread publishing meanwhile keeps using what it took and keeps its next ones.
    static void release_all_kept();
    // The bytes of heap memory the calling thread's kept batch and piece hold (kept_bytes).
    static std::size_t kept_here_bytes();
    // The heap memory the batch's messages hold, about: the slots of its vector, the
    // strings past their inline capacity and the header vectors.
    std::size_t kept_bytes() const;
    // The waiter, shared with the batch: the confirm tracker holds it until each confirm.
    static std::shared_ptr<PublishWaiter> waiter_of(const std::shared_ptr<PublishBatch> &batch) {
        return {batch, &batch->waiter};
    }
    // Every message from first on fails with error (maybe partly written: unknown).
    void fail_from(std::size_t first, const Error &error);
    // Never written: the job is certainly not in the queue. The status stays the
    // connection's (a caller may retry on QY_ERR_CONNECTION); the message says it.
    void unsent_from(std::size_t first, const Error &error);

    // Filled in by the caller before the batch is handed to the connection, then only
    // read.
    std::vector<OutgoingMessage> messages;
    PublishWaiter waiter;
    std::chrono::steady_clock::time_point deadline;
    // Taken by the I/O thread when it starts writing, or by a caller that gave up first.
    CommandClaim claim;
    // The hold queues it publishes into: declared before it unless all were declared
    // lately (hold_leases.hpp).
    HoldSpecs holds;
};

}  // namespace queuey
