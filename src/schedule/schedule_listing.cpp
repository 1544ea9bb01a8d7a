#include "schedule_listing.hpp"

#include "../error.hpp"
#include "../json_writer.hpp"
#include "fire_id.hpp"
#include "schedule_queues.hpp"

namespace queuey {

namespace {

// Every message of a queue, browsed and put back; none when the queue does not exist.
std::vector<BrowsedMessage> messages_of(Backend &backend, const std::string &queue) {
    std::vector<BrowsedMessage> messages;
    try {
        const auto browser = backend.browse(queue);
        while (auto message = browser->next()) messages.push_back(std::move(*message));
    } catch (const Error &error) {
        if (error.status() != QY_ERR_NOT_FOUND) throw;
    }
    return messages;
}

std::optional<FireTime> last_fire(Backend &backend, const std::string &schedule_name) {
    std::optional<FireTime> newest;  // a requeue may briefly leave two messages
    for (const BrowsedMessage &message : messages_of(backend, record_queue_name(schedule_name)))
        if (const auto time = recorded_time(message); time && (!newest || *time > *newest))
            newest = time;
    return newest;
}

void optional_time(JsonWriter &out, const char *key, const std::optional<FireTime> &time) {
    out.key(key);
    if (time)
        out.string(rfc3339_utc(*time));
    else
        out.null();
}

}  // namespace

ScheduleListing list_schedules(Backend &backend, std::string_view group, FireTime now) {
    check_scheduler_group(group);
    ScheduleListing listing;
    std::optional<PublishedDefinitions> newest;
    for (const BrowsedMessage &message : messages_of(backend, definitions_queue_name(group))) {
        PublishedDefinitions read = decode_definitions(message.body);
        if (!newest || read.leader.since >= newest->leader.since) newest = std::move(read);
    }
    try {
        listing.schedulers = backend.counts(leader_queue_name(group)).consumers;
    } catch (const Error &error) {
        if (error.status() != QY_ERR_NOT_FOUND) throw;
    }
    if (!newest) return listing;
    listing.leader = newest->leader;
    for (ScheduleDefinition &definition : newest->schedules) {
        const Schedule schedule(definition);
        ListedSchedule listed{std::move(definition), last_fire(backend, schedule.definition().name),
                              schedule.fire_times().next_after(now)};
        listing.schedules.push_back(std::move(listed));
    }
    return listing;
}

std::string listing_json(std::string_view group, const ScheduleListing &listing) {
    std::string json;
    JsonWriter out(json);
    out.start_object();
    out.key("group");
    out.string(group);
    out.key("leader");
    if (listing.leader)
        write_leader(out, *listing.leader);
    else
        out.null();
    out.key("schedulers");
    out.raw_number(std::to_string(listing.schedulers));
    out.key("schedules");
    out.start_array();
    for (const ListedSchedule &listed : listing.schedules) {
        out.start_object();
        write_schedule_members(out, listed.definition);
        optional_time(out, "last_fire", listed.last_fire);
        optional_time(out, "next_fire", listed.next_fire);
        out.end_object();
    }
    out.end_array();
    out.end_object();
    return json;
}

}  // namespace queuey
