#include "rabbit_consumer.hpp"

#include "../amqp_properties.hpp"
#include "../envelope_codec.hpp"
#include "../uuid.hpp"
#include "rabbit_backend.hpp"

namespace queuey {

namespace {

// From this size up a delivery's payload stays in its body. Below it, the copy costs less
// than sharing's allocation and reference counts: callgrind of worker_drain_c1 with its
// 38-byte payloads counted about 280 more instructions per job shared.
constexpr std::size_t shared_payload_bytes = 8192;

// The properties of a malformed body's copy: no envelope to derive them from.
AmqpProperties malformed_copy_properties(const std::string &queue, const std::string &problem) {
    AmqpProperties props;
    props.content_type = "application/octet-stream";
    props.message_id = new_uuid_v4();  // lets the confirm tracker attribute a return
    props.headers = {{"x-death-reason", std::string("malformed envelope")},
                     {"x-original-queue", queue},
                     {"x-malformed-detail", problem}};
    return props;
}

Error stale_delivery() {
    return Error(QY_ERR_STALE_DELIVERY, "",
                 "the delivery came on a connection or channel that has since been replaced; "
                 "not settled (the broker redelivers the job)");
}

}  // namespace

RabbitConsumer::RabbitConsumer(RabbitBackend &backend, const std::vector<QueueConfig> &queues,
                               std::shared_ptr<ConsumerObserver> observer)
    : backend_(backend), connection_(backend.consuming()), observer_(std::move(observer)) {
    try {
        for (const QueueConfig &config : queues) {
            const auto deadline = std::chrono::steady_clock::now() + backend.publish_timeout();
            sources_.push_back(
                {std::make_shared<const ConsumedQueue>(config),
                 connection_.consume(config.name, config.prefetch, deliveries_, deadline)});
        }
    } catch (...) {
        cancel_all();
        throw;
    }
}

RabbitConsumer::~RabbitConsumer() { cancel_all(); }

void RabbitConsumer::stop() {
    for (const Source &source : sources_)
        connection_.stop_consuming(source.subscription,
                                   std::chrono::steady_clock::now() + backend_.publish_timeout());
    stopped_ = true;
}

void RabbitConsumer::cancel_all() {
    for (const Source &source : sources_) connection_.cancel(source.subscription);
}

const RabbitConsumer::Source &RabbitConsumer::source_of(const IncomingDelivery &delivery) const {
    for (const Source &source : sources_)
        if (source.subscription->channel == delivery.channel) return source;
    throw Error(QY_ERR_INTERNAL, "", "a delivery on a channel this consumer does not own");
}

std::shared_ptr<Delivery> RabbitConsumer::next(std::chrono::milliseconds timeout) {
    // Once stopped nothing more arrives: drain what is buffered without waiting.
    const auto deadline =
        std::chrono::steady_clock::now() + (stopped_ ? std::chrono::milliseconds(0) : timeout);
    while (auto delivery = connection_.next_delivery(*deliveries_, deadline)) {
        const Source &source = source_of(*delivery);
        const bool stale = delivery->generation != source.subscription->generation.load();
        if (stale) continue;          // its channel was replaced: the broker redelivers it
        if (delivery->lost_runs > 0)  // maybe a copy this process is still settling the original of
            connection_.pending_requeues().wait_until_done(
                delivery->message_id,
                std::chrono::steady_clock::now() + backend_.publish_timeout());
        try {
            // A big payload stays in its body, but for a redelivery, which may have to be
            // republished as it came (requeue_lost); a small one is copied, for less than
            // sharing costs.
            MessageBody &body = delivery->body;
            Envelope envelope =
                delivery->redelivered || body.size() < shared_payload_bytes
                    ? decode_envelope(body.view())
                    : decode_envelope_sharing(body.share(), body.size(), body.plain_runs());
            return std::make_shared<RabbitDelivery>(backend_, connection_, source.queue,
                                                    source.subscription, std::move(*delivery),
                                                    std::move(envelope));
        } catch (const Error &error) {
            dead_letter_malformed(source, *delivery, error.what());
        }
    }
    return nullptr;
}

void RabbitConsumer::dead_letter_malformed(const Source &source, const IncomingDelivery &delivery,
                                           const std::string &problem) {
    const std::string &queue = source.queue->config().name;
    const auto outcomes = backend_.publish_messages(vector_of_one(
        OutgoingMessage{dead_letter_queue_name(queue), malformed_copy_properties(queue, problem),
                        delivery.body.copy()}));
    // Without a copy in the dead letters, rejecting drops the body: the spec's choice
    // over a consumer that stalls on it forever.
    const bool copied = outcomes.front().status == QY_OK;
    connection_.settle(source.subscription, delivery,
                       copied ? Settlement::ack : Settlement::reject_drop);
    if (observer_)
        observer_->malformed_body(
            {queue, problem, delivery.message_id, copied, outcomes.front().message});
}

RabbitDelivery::RabbitDelivery(RabbitBackend &backend, RabbitConnection &connection,
                               std::shared_ptr<const ConsumedQueue> queue,
                               std::shared_ptr<Subscription> subscription,
                               IncomingDelivery delivery, Envelope envelope)
    : backend_(backend),
      connection_(connection),
      queue_(std::move(queue)),
      subscription_(std::move(subscription)),
      delivery_(std::move(delivery)),
      envelope_(std::move(envelope)),
      own_return_(delivery_.redelivered ? connection_.own_redeliveries().take(delivery_.message_id)
                                        : std::nullopt),
      possibly_started_(delivery_.redelivered && own_return_ != OwnReturn::given_back) {
    // Only a job whose run may have started already is republished as it came
    // (requeue_lost): the others let the body go (their payload may still share it, with
    // a NUL written into it).
    if (!possibly_started_) delivery_.body = MessageBody();
}

RabbitDelivery::~RabbitDelivery() {
    if (settled_) return;
    try {
        connection_.settle(subscription_, delivery_, Settlement::reject_requeue);
    } catch (const Error &) {
        // The connection is closed: the broker requeued the delivery with it.
    }
}

void RabbitDelivery::check_unsettled() const {
    if (settled_) throw Error(QY_ERR_ALREADY_SETTLED, "", "the delivery was already settled");
}

void RabbitDelivery::settle(Settlement settlement) {
    // A settle refused here or dropped later never reaches the broker: the I/O thread
    // recorded the job as its own redelivery when it replaced the channel.
    if (!connection_.settle(subscription_, delivery_, settlement)) throw stale_delivery();
    settled_ = true;
}

void RabbitDelivery::publish_then_ack(OutgoingMessage successor) {
    publish_batch_then_ack(std::make_shared<PublishBatch>(vector_of_one(std::move(successor))));
}

void RabbitDelivery::publish_batch_then_ack(std::shared_ptr<PublishBatch> batch) {
    if (stale()) throw stale_delivery();
    const PublishOutcome outcome = backend_.publish_single(std::move(batch));
    // On failure the worker keeps the delivery and tries the settle again later
    // (docs/worker.md, settle failures).
    if (outcome.status != QY_OK) throw Error(outcome.status, "", outcome.message);
    settle(Settlement::ack);
}

bool RabbitDelivery::publishing_blocked() const {
    return backend_.publishing().publishing_blocked();
}

void RabbitDelivery::set_aside() { connection_.set_aside(subscription_, delivery_); }

void RabbitDelivery::ack() {
    check_unsettled();
    settle(Settlement::ack);
}

void RabbitDelivery::retry(const Envelope &next, std::chrono::nanoseconds delay) {
    check_unsettled();
    std::shared_ptr<const QueueSpec> hold = queue_->hold_for(delay);
    // A retry per run is common: it goes in the thread's reusable batch, its hold too.
    std::shared_ptr<PublishBatch> batch = PublishBatch::reusable();
    set_message(batch->messages.front(), hold->name, next, /*refer_payload=*/false);
    batch->holds.push_back(std::move(hold));
    publish_batch_then_ack(std::move(batch));
}

void RabbitDelivery::defer(const Envelope &next, std::chrono::nanoseconds delay) {
    retry(next, delay);  // on the wire a deferral differs from a retry only in its envelope
}

void RabbitDelivery::requeue_lost(std::uint32_t lost_runs) {
    check_unsettled();
    RabbitConnection &connection = connection_;
    connection.pending_requeues().begin(delivery_.message_id);
    struct Done {
        RabbitConnection &connection;
        const std::string &message_id;
        ~Done() { connection.pending_requeues().end(message_id); }
    } done{connection, delivery_.message_id};
    // The body as it came: the same job, byte for byte. A delivery that was not possibly
    // started let its body go (the worker requeues only those): its envelope is encoded.
    publish_then_ack({queue_->config().name, lost_run_properties(envelope_, lost_runs),
                      possibly_started_ ? delivery_.body.copy() : encode_envelope(envelope_)});
    try {
        connection.flush_acks(std::chrono::steady_clock::now() + backend_.publish_timeout());
    } catch (const Error &) {
        // The ack is queued; a connection lost meanwhile hands the job back as this
        // process's own redelivery.
    }
}

void RabbitDelivery::dead_letter(const DeadLetterCause &cause) {
    check_unsettled();
    publish_then_ack({dead_letter_queue_name(queue_->config().name),
                      dead_letter_properties(envelope_, cause), encode_envelope(envelope_)});
}

}  // namespace queuey
