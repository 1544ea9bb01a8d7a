#include "memory_browser.hpp"

#include "../amqp_properties.hpp"
#include "../envelope_codec.hpp"
#include "../error.hpp"
#include "../json_writer.hpp"

#include <utility>

namespace queuey {

namespace {

BrowsedHeader browsed(const AmqpHeader &header) {
    BrowsedHeader out{header.name, {}, {}, {}};
    if (const auto *number = std::get_if<std::uint32_t>(&header.value)) {
        out.integer = *number;
        out.json = std::to_string(*number);
    } else {
        out.text = std::get<std::string>(header.value);
        append_json_string(out.json, *out.text);
    }
    return out;
}

// What a basic.get of the message returns on RabbitMQ.
BrowsedMessage browsed(const QueuedMessage &queued, std::uint64_t tag) {
    const MemoryMessage &message = queued.message;
    AmqpProperties props = message.lost_runs > 0
                               ? lost_run_properties(message.envelope, message.lost_runs)
                               : publish_properties(message.envelope);
    if (!message.dead_letter_headers.empty()) props.headers = message.dead_letter_headers;
    BrowsedMessage out;
    out.tag = tag;
    out.redelivered = queued.redelivered;
    out.message_id = props.message_id;
    out.type = props.type;
    out.priority = props.priority;
    for (const AmqpHeader &header : props.headers) out.headers.push_back(browsed(header));
    out.body = encode_envelope(message.envelope);
    return out;
}

}  // namespace

MemoryBrowser::MemoryBrowser(std::shared_ptr<MemoryBroker> broker, std::string queue)
    : broker_(std::move(broker)), queue_(std::move(queue)) {
    (void)broker_->counts(queue_);  // a missing queue fails here
}

MemoryBrowser::~MemoryBrowser() { close(); }

std::optional<BrowsedMessage> MemoryBrowser::next() {
    if (closed_) throw Error(QY_ERR_CLOSED, "", "the browser was closed");
    std::optional<QueuedMessage> queued = broker_->take_browsed(queue_);
    if (!queued) return std::nullopt;
    const std::uint64_t tag = next_tag_++;
    BrowsedMessage message = browsed(*queued, tag);
    taken_.emplace(tag, std::move(*queued));
    return message;
}

void MemoryBrowser::remove(const BrowsedMessage &message) {
    if (closed_) throw Error(QY_ERR_CLOSED, "", "the browser was closed");
    if (taken_.erase(message.tag) == 0)
        throw Error(QY_ERR_INVALID_ARGUMENT, "message", "not a message this browser holds");
    broker_->remove_browsed(queue_);
}

void MemoryBrowser::close() {
    if (std::exchange(closed_, true)) return;
    std::vector<QueuedMessage> back;
    for (auto &[tag, queued] : taken_) back.push_back(std::move(queued));
    taken_.clear();
    broker_->put_back_browsed(queue_, std::move(back));
}

}  // namespace queuey
