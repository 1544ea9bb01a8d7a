#include "schedule_queues.hpp"

#include "../error.hpp"
#include "fire_id.hpp"

namespace queuey {

namespace {

constexpr std::string_view record_prefix = "queuey.schedule.record.";

// One message, the newest: a publish beyond it drops the older from the head.
std::vector<QueueArgument> newest_only() {
    return {{"x-max-length", std::int64_t{1}}, {"x-overflow", std::string("drop-head")}};
}

void add_schedule_headers(AmqpProperties &props, std::string_view name, FireTime time) {
    props.headers.push_back({std::string(schedule_header), std::string(name)});
    props.headers.push_back({std::string(fire_time_header), rfc3339_utc(time)});
}

std::string group_queue_name(std::string name, std::string_view group) {
    if (!group.empty()) (name += '.') += group;
    return name;
}

}  // namespace

std::string leader_queue_name(std::string_view group) {
    return group_queue_name("queuey.schedule.leader", group);
}

std::string definitions_queue_name(std::string_view group) {
    return group_queue_name("queuey.schedule.definitions", group);
}

void check_scheduler_group(std::string_view group) {
    check_name_argument("group", group, true);
    // The longest of the group's queue names.
    if (const std::size_t length = definitions_queue_name(group).size(); length > 255)
        throw Error(QY_ERR_INVALID_ARGUMENT, "group",
                    std::to_string(group.size()) + " bytes: at most " +
                        std::to_string(group.size() - (length - 255)));
}

QueueSpec leader_queue_spec(std::string_view group) {
    QueueSpec spec{leader_queue_name(group), true, newest_only()};
    spec.arguments.push_back({"x-single-active-consumer", true});
    return spec;
}

QueueSpec definitions_queue_spec(std::string_view group) {
    return {definitions_queue_name(group), true, newest_only()};
}

std::string record_queue_name(std::string_view schedule_name) {
    std::string name(record_prefix);
    name += schedule_name;
    return name;
}

QueueSpec record_queue_spec(std::string_view schedule_name) {
    return {record_queue_name(schedule_name), true, newest_only()};
}

AmqpProperties fire_properties(const Envelope &fire, std::string_view schedule_name,
                               FireTime time) {
    AmqpProperties props = publish_properties(fire);
    add_schedule_headers(props, schedule_name, time);
    return props;
}

AmqpProperties record_properties(std::string_view schedule_name, FireTime accounted_to) {
    AmqpProperties props;
    props.message_id = "record@" + rfc3339_utc(accounted_to);
    add_schedule_headers(props, schedule_name, accounted_to);
    return props;
}

std::optional<FireTime> recorded_time(const BrowsedMessage &message) {
    const BrowsedHeader *time = message.header(fire_time_header);
    if (time == nullptr || !time->text) return std::nullopt;
    return parse_rfc3339_utc(*time->text);
}

}  // namespace queuey
