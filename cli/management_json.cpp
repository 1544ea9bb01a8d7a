#include "management_json.hpp"

#include <rapidjson/document.h>

#include <map>
#include <stdexcept>

namespace queuey_cli {

namespace {

const rapidjson::Value &member(const rapidjson::Value &object, const char *name) {
    static const rapidjson::Value null;
    return object.IsObject() && object.HasMember(name) ? object[name] : null;
}

std::uint64_t count(const rapidjson::Value &object, const char *name) {
    const rapidjson::Value &value = member(object, name);
    return value.IsUint64() ? value.GetUint64() : 0;
}

std::string text(const rapidjson::Value &object, const char *name) {
    const rapidjson::Value &value = member(object, name);
    return value.IsString() ? std::string(value.GetString(), value.GetStringLength()) : "";
}

rapidjson::Document parsed(std::string_view body, const char *what) {
    rapidjson::Document document;
    document.Parse(body.data(), body.size());
    if (document.HasParseError())
        throw std::runtime_error(std::string("the management API's ") + what + " is not JSON");
    return document;
}

}  // namespace

std::vector<ManagedQueue> read_queue_list(std::string_view body) {
    const rapidjson::Document document = parsed(body, "queue list");
    if (!document.IsArray()) throw std::runtime_error("the management API's queue list is no list");
    std::vector<ManagedQueue> queues;
    for (const rapidjson::Value &queue : document.GetArray())
        queues.push_back({text(queue, "name"), count(queue, "messages_ready"),
                          count(queue, "messages_unacknowledged"), count(queue, "consumers")});
    return queues;
}

std::vector<ManagedConsumer> read_consumers(std::string_view queue, std::string_view connections) {
    const rapidjson::Document queue_document = parsed(queue, "queue");
    const rapidjson::Document connection_list = parsed(connections, "connection list");
    std::map<std::string, std::string> given_names;
    if (connection_list.IsArray())
        for (const rapidjson::Value &connection : connection_list.GetArray())
            given_names[text(connection, "name")] = text(connection, "user_provided_name");
    std::vector<ManagedConsumer> consumers;
    const rapidjson::Value &details = member(queue_document, "consumer_details");
    if (!details.IsArray()) return consumers;
    for (const rapidjson::Value &consumer : details.GetArray()) {
        const rapidjson::Value &channel = member(consumer, "channel_details");
        const rapidjson::Value &ack = member(consumer, "ack_required");
        consumers.push_back(
            {text(consumer, "consumer_tag"), given_names[text(channel, "connection_name")],
             text(channel, "peer_host") + ":" + std::to_string(count(channel, "peer_port")),
             count(consumer, "prefetch_count"), !ack.IsBool() || ack.GetBool()});
    }
    return consumers;
}

}  // namespace queuey_cli
