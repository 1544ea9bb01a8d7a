#include "rabbit_consumer.hpp"

#include "../amqp_properties.hpp"
#include "../envelope_codec.hpp"
#include "../uuid.hpp"
#include "rabbit_backend.hpp"

namespace queuey {

namespace {

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

}  // namespace

RabbitConsumer::RabbitConsumer(RabbitBackend &backend, const std::vector<QueueConfig> &queues)
    : backend_(backend), forgiven_(backend.forgiven_jobs()) {
    try {
        for (const QueueConfig &config : queues) {
            const auto deadline = std::chrono::steady_clock::now() + backend.publish_timeout();
            sources_.push_back(
                {config, backend_.connection().consume(config.name, config.prefetch, deliveries_, deadline)});
        }
    } catch (...) {
        cancel_all();
        throw;
    }
}

RabbitConsumer::~RabbitConsumer() { cancel_all(); }

void RabbitConsumer::stop() {
    for (const Source &source : sources_)
        backend_.connection().stop_consuming(
            source.subscription, std::chrono::steady_clock::now() + backend_.publish_timeout());
    stopped_ = true;
}

void RabbitConsumer::cancel_all() {
    for (const Source &source : sources_) backend_.connection().cancel(source.subscription);
}

const RabbitConsumer::Source &RabbitConsumer::source_of(const IncomingDelivery &delivery) const {
    for (const Source &source : sources_)
        if (source.subscription->channel == delivery.channel) return source;
    throw Error(QY_ERR_INTERNAL, "", "a delivery on a channel this consumer does not own");
}

std::unique_ptr<Delivery> RabbitConsumer::next(std::chrono::milliseconds timeout) {
    // Once stopped nothing more arrives: drain what is buffered without waiting.
    const auto deadline = std::chrono::steady_clock::now() + (stopped_ ? std::chrono::milliseconds(0) : timeout);
    while (auto delivery = deliveries_->pop(deadline)) {
        const Source &source = source_of(*delivery);
        const bool stale = delivery->generation != source.subscription->generation.load();
        try {
            Envelope envelope = decode_envelope(delivery->body);
            if (stale) {  // its channel was replaced: the broker redelivers it
                forgiven_->add(envelope.job_id);
                continue;
            }
            return std::make_unique<RabbitDelivery>(backend_, source.config, source.subscription,
                                                    std::move(*delivery), std::move(envelope), forgiven_);
        } catch (const Error &error) {
            if (!stale) dead_letter_malformed(source, *delivery, error.what());
        }
    }
    return nullptr;
}

void RabbitConsumer::dead_letter_malformed(const Source &source, const IncomingDelivery &delivery,
                                           const std::string &problem) {
    const std::string &queue = source.config.name;
    const auto outcomes = backend_.publish_messages(
        {{dead_letter_queue_name(queue), malformed_copy_properties(queue, problem), delivery.body}});
    // Without a copy in the dead letters, rejecting drops the body: the spec's choice
    // over a consumer that stalls on it forever.
    const bool copied = outcomes.front().status == QY_OK;
    backend_.connection().settle(source.subscription, delivery,
                                 copied ? Settlement::ack : Settlement::reject_drop);
}

RabbitDelivery::RabbitDelivery(RabbitBackend &backend, const QueueConfig &config,
                               std::shared_ptr<Subscription> subscription, IncomingDelivery delivery,
                               Envelope envelope, std::shared_ptr<ForgivenJobs> forgiven)
    : backend_(backend), config_(config), subscription_(std::move(subscription)),
      delivery_(std::move(delivery)), envelope_(std::move(envelope)), forgiven_(std::move(forgiven)),
      possibly_started_(delivery_.redelivered && !forgiven_->take(envelope_.job_id)) {}

RabbitDelivery::~RabbitDelivery() {
    if (settled_) return;
    try {
        backend_.connection().settle(subscription_, delivery_, Settlement::reject_requeue);
    } catch (const Error &) {
        // The connection is closed: the broker requeued the delivery with it.
    }
}

void RabbitDelivery::check_unsettled() const {
    if (settled_) throw Error(QY_ERR_ALREADY_SETTLED, "", "the delivery was already settled");
}

void RabbitDelivery::settle(Settlement settlement) {
    // This process is alive: a redelivery for a settle that never reached the broker is
    // no crash, whether it is refused here or dropped by the I/O thread later.
    auto forgive = [forgiven = forgiven_, job_id = envelope_.job_id] { forgiven->add(job_id); };
    if (!backend_.connection().settle(subscription_, delivery_, settlement, forgive)) {
        forgive();
        throw Error(QY_ERR_STALE_DELIVERY, "",
                    "the delivery came on a connection or channel that has since been replaced; "
                    "not settled (the broker redelivers the job)");
    }
    settled_ = true;
}

void RabbitDelivery::publish_then_ack(OutgoingMessage successor, std::vector<QueueSpec> holds) {
    const auto outcomes = backend_.publish_messages({std::move(successor)}, std::move(holds));
    if (outcomes.front().status != QY_OK) {
        forgiven_->add(envelope_.job_id);  // redelivered to rerun this attempt, not as a crash
        throw Error(outcomes.front().status, "", outcomes.front().message);
    }
    settle(Settlement::ack);
}

void RabbitDelivery::ack() {
    check_unsettled();
    settle(Settlement::ack);
}

void RabbitDelivery::retry(const Envelope &next, std::chrono::nanoseconds delay) {
    check_unsettled();
    QueueSpec hold = hold_queue_spec(config_, delay);
    OutgoingMessage successor{hold.name, publish_properties(next), encode_envelope(next)};
    publish_then_ack(std::move(successor), {std::move(hold)});
}

void RabbitDelivery::defer(const Envelope &next, std::chrono::nanoseconds delay) {
    retry(next, delay);  // on the wire a deferral differs from a retry only in its envelope
}

void RabbitDelivery::dead_letter(const std::string &reason) {
    check_unsettled();
    publish_then_ack({dead_letter_queue_name(config_.name), dead_letter_properties(envelope_, reason),
                      encode_envelope(envelope_)});
}

}  // namespace queuey
