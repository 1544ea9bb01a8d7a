#include "publish_batch.hpp"

#include "../envelope_codec.hpp"
#include "../mutex.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <variant>
#include <vector>

namespace queuey {

namespace {

// What one thread keeps for its next publish: its batch of one (reusable) and its piece
// for its next batch (keep_piece). Each is empty (the thread never published, or it was
// released) or held. Only its thread fills them or takes one out (reusable,
// reusable_piece, keep_piece); its thread (release_kept), any thread (release_all_kept)
// and the thread's exit empty them. The mutex is uncontended but while another thread
// releases all.
class ThreadKept {
public:
    ThreadKept();
    ~ThreadKept();
    ThreadKept(const ThreadKept &) = delete;
    ThreadKept &operator=(const ThreadKept &) = delete;

    Mutex mutex;
    std::shared_ptr<PublishBatch> batch QY_GUARDED_BY(mutex);
    std::shared_ptr<PublishBatch> piece QY_GUARDED_BY(mutex);
};

// Every thread's ThreadKept, for release_all_kept. Lock order: this mutex, then a
// thread's. Never destroyed: a thread may exit while the process does.
struct KeptRegistry {
    Mutex mutex;
    std::vector<ThreadKept *> threads QY_GUARDED_BY(mutex);
};

KeptRegistry &kept_registry() {
    static KeptRegistry *const registry = new KeptRegistry;
    return *registry;
}

ThreadKept::ThreadKept() {
    KeptRegistry &registry = kept_registry();
    const MutexLock lock(registry.mutex);
    registry.threads.push_back(this);
}

ThreadKept::~ThreadKept() {
    KeptRegistry &registry = kept_registry();
    const MutexLock lock(registry.mutex);
    std::erase(registry.threads, this);
}

// Made (and registered) on the thread's first publish: a thread that never publishes
// keeps nothing.
thread_local ThreadKept kept_here;

// What a release takes out of a thread's ThreadKept, freed once no mutex is held.
struct Released {
    std::shared_ptr<PublishBatch> batch;
    std::shared_ptr<PublishBatch> piece;
};

Released take_all(ThreadKept &kept) QY_REQUIRES(kept.mutex) {
    return {std::move(kept.batch), std::move(kept.piece)};
}

// The heap memory a string holds: none while its text fits in the string itself.
std::size_t heap_bytes(const std::string &text) {
    return text.capacity() > std::string().capacity() ? text.capacity() + 1 : 0;
}

// A batch that nobody else holds any more, emptied for count messages: its strings and
// vectors keep their capacity.
void empty_for(PublishBatch &batch, std::size_t count) {
    // The count fell to one when the I/O thread let go of its last copy (a release): all
    // it did with the batch happened before what follows.
    std::atomic_thread_fence(std::memory_order_acquire);
    batch.messages.resize(count);
    for (OutgoingMessage &message : batch.messages) {
        message.queue.clear();
        message.properties.headers.clear();
        message.body.clear();
        message.payload = Payload();
    }
    batch.waiter.reset(count);
    batch.claim.reset();
    batch.holds.clear();
}

}  // namespace

std::size_t PublishBatch::kept_bytes() const {
    std::size_t bytes = messages.capacity() * sizeof(OutgoingMessage);
    for (const OutgoingMessage &message : messages) {
        bytes += heap_bytes(message.queue) + heap_bytes(message.body) +
                 heap_bytes(message.properties.message_id) + heap_bytes(message.properties.type) +
                 message.properties.headers.capacity() * sizeof(AmqpHeader);
        for (const AmqpHeader &header : message.properties.headers) {
            bytes += heap_bytes(header.name);
            if (const auto *text = std::get_if<std::string>(&header.value))
                bytes += heap_bytes(*text);
        }
    }
    return bytes;
}

std::shared_ptr<PublishBatch> PublishBatch::reusable() {
    ThreadKept &here = kept_here;  // one look-up of the thread's storage
    const MutexLock lock(here.mutex);
    std::shared_ptr<PublishBatch> &kept = here.batch;
    if (!kept || kept.use_count() != 1 ||
        kept->messages.front().body.capacity() > largest_kept_body) {
        kept = std::make_shared<PublishBatch>(1);
        return kept;
    }
    empty_for(*kept, 1);
    return kept;
}

std::shared_ptr<PublishBatch> PublishBatch::reusable_piece(std::size_t count) {
    std::shared_ptr<PublishBatch> piece;
    {
        ThreadKept &here = kept_here;
        const MutexLock lock(here.mutex);
        piece = std::move(here.piece);
    }
    if (!piece) return std::make_shared<PublishBatch>(count);
    empty_for(*piece, count);
    return piece;
}

void PublishBatch::keep_piece(std::shared_ptr<PublishBatch> piece) {
    // Still held by the I/O thread (a piece its caller gave up on), or too big to hold.
    if (piece.use_count() != 1 || piece->messages.size() > most_kept_piece_messages) return;
    std::atomic_thread_fence(std::memory_order_acquire);  // as empty_for
    std::vector<OutgoingMessage> &messages = piece->messages;
    if (std::any_of(messages.begin(), messages.end(), [](const OutgoingMessage &message) {
            return message.body.capacity() > largest_kept_body;
        }))
        return;
    // Reused batch after batch, each message keeps the largest body it ever had: pieces
    // of mixed sizes would add up to 1,024 bodies of 64 KiB without this bound.
    if (piece->kept_bytes() > most_kept_piece_bytes) return;
    // None of its caller's payloads held while kept.
    for (OutgoingMessage &message : messages) message.payload = Payload();
    ThreadKept &here = kept_here;
    const MutexLock lock(here.mutex);
    here.piece.swap(piece);  // the one kept before, if any, freed once unlocked
}

void PublishBatch::release_kept() {
    Released released;
    {
        ThreadKept &here = kept_here;
        const MutexLock lock(here.mutex);
        released = take_all(here);
    }
    // Freed here, or by the I/O thread when it lets go of a batch it still holds.
}

void PublishBatch::release_all_kept() {
    std::vector<Released> released;
    {
        KeptRegistry &registry = kept_registry();
        const MutexLock lock(registry.mutex);
        released.reserve(registry.threads.size());
        for (ThreadKept *thread : registry.threads) {
            const MutexLock thread_lock(thread->mutex);
            released.push_back(take_all(*thread));
        }
    }
    // Freed here, once no thread waits for a lock, or by the I/O thread as above.
}

std::size_t PublishBatch::kept_here_bytes() {
    ThreadKept &here = kept_here;
    const MutexLock lock(here.mutex);
    return (here.batch ? here.batch->kept_bytes() : 0) +
           (here.piece ? here.piece->kept_bytes() : 0);
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
