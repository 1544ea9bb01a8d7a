#include "jobs.hpp"

#include "cli.hpp"

#include <algorithm>
#include <stdexcept>

namespace {

constexpr char default_payload[] = R"({"user_id":48213,"template":"welcome"})";

// What queuey puts on the wire with env, expressed with rabbitmq-c's types.
void fill_message(const qy_envelope *env, RawMessage &message) {
    char *body = nullptr;
    std::size_t body_len = 0;
    qy_error *err = nullptr;
    check_qy(qy_envelope_to_bytes(env, &body, &body_len, &err), err, "encoding an envelope");
    message.body.assign(body, body_len);
    qy_string_free(body);

    qy_properties *props = nullptr;
    check_qy(qy_envelope_properties(env, &props, &err), err, "getting an envelope's properties");
    message.content_type = qy_properties_content_type(props);
    message.message_id = qy_properties_message_id(props);
    message.type = qy_properties_type(props);
    const std::size_t count = qy_properties_header_count(props);
    message.header_names.reserve(count);  // reserved: entries point into these strings
    message.header_strings.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        amqp_table_entry_t entry{};
        entry.key = amqp_cstring_bytes(
            message.header_names.emplace_back(qy_properties_header_name(props, i)).c_str());
        if (qy_properties_header_kind(props, i) == QY_FIELD_U32) {
            entry.value.kind = AMQP_FIELD_KIND_U32;
            entry.value.value.u32 = qy_properties_header_u32(props, i);
        } else {
            entry.value.kind = AMQP_FIELD_KIND_UTF8;
            entry.value.value.bytes = amqp_cstring_bytes(
                message.header_strings.emplace_back(qy_properties_header_string(props, i)).c_str());
        }
        message.headers.push_back(entry);
    }

    amqp_basic_properties_t &p = message.properties;
    p._flags = AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG |
               AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_TYPE_FLAG | AMQP_BASIC_PRIORITY_FLAG |
               AMQP_BASIC_HEADERS_FLAG;
    p.content_type = amqp_cstring_bytes(message.content_type.c_str());
    p.delivery_mode = qy_properties_delivery_mode(props);
    p.message_id = amqp_cstring_bytes(message.message_id.c_str());
    p.type = amqp_cstring_bytes(message.type.c_str());
    p.priority = qy_properties_priority(props);
    p.headers = {static_cast<int>(message.headers.size()), message.headers.data()};
    qy_properties_free(props);
}

}  // namespace

void check_qy(qy_status status, qy_error *const &err, const char *doing) {
    if (status == QY_OK) return;
    std::string message = std::string("queuey: ") + doing + ": " + qy_status_name(status) + ": " +
                          qy_error_message(err);
    qy_error_free(err);
    throw std::runtime_error(message);
}

std::string payload_of(std::size_t bytes) {
    if (bytes == 0) return default_payload;
    if (bytes < 2) throw std::invalid_argument("a JSON string payload takes at least 2 bytes");
    return '"' + std::string(bytes - 2, 'x') + '"';
}

Job::Job(const std::string &queue, const std::string &payload) {
    qy_envelope *env = nullptr;
    qy_error *err = nullptr;
    check_qy(
        qy_envelope_new("send_email", queue.c_str(), payload.data(), payload.size(), &env, &err),
        err, "creating an envelope");
    envelope.reset(env);
    fill_message(env, message);
}

JobSet::JobSet(const std::string &queue, std::size_t count, std::size_t payload_bytes) {
    const std::string payload = payload_of(payload_bytes);
    for (std::size_t i = 0; i < count; ++i) jobs_.emplace_back(queue, payload);
}

void publish_pipelined(RawConnection &connection, const std::string &queue, const JobSet &jobs,
                       std::size_t count, std::size_t batch) {
    for (std::size_t first = 0; first < count; first += batch) {
        const std::size_t end = std::min(count, first + batch);
        for (std::size_t i = first; i < end; ++i) connection.publish(queue, jobs[i].message);
        connection.await_confirms();
    }
}

void publish_new_jobs(RawConnection &connection, const std::string &queue, std::size_t count,
                      std::size_t batch, std::size_t payload_bytes) {
    for (std::size_t published = 0; published < count; published += batch) {
        const std::size_t size = std::min(batch, count - published);
        publish_pipelined(connection, queue, JobSet(queue, size, payload_bytes), size, size);
    }
}

Owned<qy_client> connect_declared(const std::string &url, const std::string &queue,
                                  std::uint16_t prefetch, std::uint32_t granularity_ms,
                                  const QueueShape &shape) {
    qy_error *err = nullptr;
    qy_client_options *options = nullptr;
    check_qy(qy_client_options_new(&options, &err), err, "making client options");
    const Owned<qy_client_options> owned_options(options, qy_client_options_free);
    const std::vector<std::string> urls = FlagReader::split(url);
    if (urls.empty()) throw std::runtime_error("no broker URL");
    for (std::size_t i = 1; i < urls.size(); ++i)
        check_qy(qy_client_options_add_url(options, urls[i].c_str(), &err), err, "adding a URL");
    qy_client *client = nullptr;
    check_qy(qy_client_new(urls.front().c_str(), options, &client, &err), err, "connecting");
    Owned<qy_client> owned(client, qy_client_free);
    qy_queue_config *config = nullptr;
    check_qy(qy_queue_config_new(queue.c_str(), &config, &err), err, "configuring the queue");
    const Owned<qy_queue_config> owned_config(config, qy_queue_config_free);
    check_qy(qy_queue_config_set_prefetch(config, prefetch, &err), err, "setting the prefetch");
    check_qy(qy_queue_config_set_delay_granularity_ms(config, granularity_ms, &err), err,
             "setting the delay granularity");
    if (shape.quorum)
        check_qy(qy_queue_config_set_type(config, QY_QUEUE_QUORUM, &err), err,
                 "setting the queue type");
    else
        check_qy(qy_queue_config_set_max_priority(config, shape.max_priority, &err), err,
                 "setting the max priority");
    check_qy(qy_client_declare(client, config, &err), err, "declaring the queue");
    return owned;
}
