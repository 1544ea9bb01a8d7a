#include "queue_message.hpp"

#include "broker_death_reason.hpp"
#include "envelope_codec.hpp"
#include "error.hpp"
#include "json_writer.hpp"

#include <algorithm>

namespace queuey {

namespace {

std::string text_header(const BrowsedMessage &message, std::string_view name) {
    const BrowsedHeader *header = message.header(name);
    return header && header->text ? *header->text : std::string();
}

}  // namespace

std::string QueueMessage::headers_json() const {
    std::string out = "{";
    for (const BrowsedHeader &header : message.headers) {
        if (out.size() > 1) out += ',';
        append_json_string(out, header.name);
        out += ':';
        out += header.json;
    }
    out += '}';
    return out;
}

QueueMessage read_queue_message(BrowsedMessage message) {
    QueueMessage read;
    try {
        read.envelope = decode_envelope(message.body);
    } catch (const Error &error) {
        read.decode_error = error.what();
    }
    read.job_id = read.envelope ? read.envelope->job_id : message.message_id;
    read.job_type = read.envelope ? read.envelope->job_type : message.type;
    read.reason = text_header(message, "x-death-reason");
    read.original_queue = text_header(message, "x-original-queue");
    if (const std::string broker_reason = text_header(message, first_death_reason_header);
        read.reason.empty() && !broker_reason.empty()) {  // dead-lettered by RabbitMQ itself
        read.reason = broker_death_reason(broker_reason);
        if (read.original_queue.empty())
            read.original_queue = text_header(message, first_death_queue_header);
    }
    if (read.original_queue.empty() && read.envelope) read.original_queue = read.envelope->queue;
    const BrowsedHeader *attempts = message.header("x-attempts");
    if (attempts && attempts->integer)
        read.attempt =
            static_cast<std::uint32_t>(std::clamp<std::int64_t>(*attempts->integer, 0, UINT32_MAX));
    else if (read.envelope)
        read.attempt = read.envelope->attempt;
    read.message = std::move(message);
    return read;
}

}  // namespace queuey
