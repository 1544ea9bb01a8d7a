#include "schedule_definitions.hpp"

#include "../envelope_codec.hpp"
#include "../error.hpp"
#include "../json_writer.hpp"
#include "../utf8.hpp"
#include "fire_id.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <limits>
#include <map>

namespace queuey {

namespace {

using rapidjson::Value;

// The payload as every scheduler spells it: compact, keys and digits as written.
std::string canonical_payload(const ScheduleDefinition &definition) {
    return compact_json_value(definition.payload_json, "payload");
}

[[noreturn]] void bad(const std::string &path, const std::string &what) {
    throw Error(QY_ERR_BAD_JSON, path, what);
}

const Value &member(const Value &object, const char *name, const std::string &path) {
    const auto found = object.FindMember(name);
    if (found == object.MemberEnd()) bad(path + name, "missing");
    return found->value;
}

const Value *optional_member(const Value &object, const char *name) {
    const auto found = object.FindMember(name);
    return found == object.MemberEnd() ? nullptr : &found->value;
}

std::string text(const Value &value, const std::string &path) {
    if (!value.IsString()) bad(path, "must be a string");
    std::string read(value.GetString(), value.GetStringLength());
    // An escape may spell what is no UTF-8 (a lone surrogate, \udc00).
    if (!is_valid_utf8(read)) bad(path, "is not UTF-8");
    return read;
}

std::int64_t integer(const Value &value, const std::string &path, std::int64_t low,
                     std::int64_t high) {
    if (!value.IsInt64() || value.GetInt64() < low || value.GetInt64() > high)
        bad(path, "must be an integer from " + std::to_string(low) + " to " + std::to_string(high));
    return value.GetInt64();
}

LeaderIdentity read_leader(const Value &leader) {
    if (!leader.IsObject()) bad("leader", "must be an object");
    LeaderIdentity identity;
    identity.connection = text(member(leader, "connection", "leader."), "leader.connection");
    identity.host = text(member(leader, "host", "leader."), "leader.host");
    identity.pid = integer(member(leader, "pid", "leader."), "leader.pid", 0,
                           std::numeric_limits<std::int64_t>::max());
    const std::string since = text(member(leader, "since", "leader."), "leader.since");
    const auto time = parse_rfc3339_utc(since);
    if (!time) bad("leader.since", "not a time as YYYY-MM-DDTHH:MM:SSZ: " + since);
    identity.since = *time;
    return identity;
}

MissedFires read_missed(const Value &schedule, const std::string &path) {
    const std::string policy = text(member(schedule, "missed", path), path + "missed");
    if (policy == "skip") return {};
    if (policy != "catch_up") bad(path + "missed", "must be skip or catch_up, not " + policy);
    const auto at_most = integer(member(schedule, "catch_up_at_most", path),
                                 path + "catch_up_at_most", 1, MissedFires::max_catch_up);
    return {MissedFires::Policy::catch_up, static_cast<unsigned>(at_most)};
}

ScheduleDefinition read_schedule(const Value &schedule, const std::string &path) {
    if (!schedule.IsObject()) bad(path, "must be an object");
    const std::string prefix = path + ".";
    ScheduleDefinition definition;
    definition.name = text(member(schedule, "name", prefix), prefix + "name");
    definition.queue = text(member(schedule, "queue", prefix), prefix + "queue");
    definition.job_type = text(member(schedule, "job_type", prefix), prefix + "job_type");
    definition.payload_json = text(member(schedule, "payload", prefix), prefix + "payload");
    if (const Value *cron = optional_member(schedule, "cron")) {
        definition.cron = text(*cron, prefix + "cron");
        definition.time_zone = text(member(schedule, "time_zone", prefix), prefix + "time_zone");
    }
    if (const Value *interval = optional_member(schedule, "interval_ms"))
        definition.interval = std::chrono::milliseconds(integer(
            *interval, prefix + "interval_ms", 1, std::numeric_limits<std::int64_t>::max()));
    definition.missed = read_missed(schedule, prefix);
    try {
        (void)Schedule(definition);  // what the leader could not have fired
    } catch (const Error &error) {
        std::string why = error.what();
        if (!error.field().empty()) why.erase(0, error.field().size() + 2);
        bad(prefix + error.field(), why);
    }
    return definition;
}

std::string when(const ScheduleDefinition &definition) {
    if (definition.cron) return "cron `" + *definition.cron + "` in " + definition.time_zone;
    return "every " + std::to_string(definition.interval->count()) + " ms";
}

std::string missed_text(const MissedFires &missed) {
    if (missed.policy == MissedFires::Policy::skip) return "skip";
    return "catch up at most " + std::to_string(missed.at_most);
}

// "field `here` here, `there` in the leader's" for each field that differs.
std::vector<std::string> differing_fields(const ScheduleDefinition &here,
                                          const ScheduleDefinition &there) {
    std::vector<std::string> fields;
    const auto compare = [&](const char *field, const std::string &a, const std::string &b) {
        if (a != b)
            fields.push_back(std::string(field) + " `" + a + "` here, `" + b + "` in the leader's");
    };
    compare("queue", here.queue, there.queue);
    compare("job type", here.job_type, there.job_type);
    compare("payload", canonical_payload(here), canonical_payload(there));
    compare("fires", when(here), when(there));
    compare("missed fires", missed_text(here.missed), missed_text(there.missed));
    return fields;
}

}  // namespace

void write_schedule_members(JsonWriter &out, const ScheduleDefinition &definition) {
    out.key("name");
    out.string(definition.name);
    out.key("queue");
    out.string(definition.queue);
    out.key("job_type");
    out.string(definition.job_type);
    out.key("payload");
    out.string(canonical_payload(definition));
    if (definition.cron) {
        out.key("cron");
        out.string(*definition.cron);
        out.key("time_zone");
        out.string(definition.time_zone);
    } else {
        out.key("interval_ms");
        out.raw_number(std::to_string(definition.interval->count()));
    }
    out.key("missed");
    if (definition.missed.policy == MissedFires::Policy::skip) {
        out.string("skip");
    } else {
        out.string("catch_up");
        out.key("catch_up_at_most");
        out.raw_number(std::to_string(definition.missed.at_most));
    }
}

void write_leader(JsonWriter &out, const LeaderIdentity &leader) {
    out.start_object();
    out.key("connection");
    out.string(leader.connection);
    out.key("host");
    out.string(leader.host);
    out.key("pid");
    out.raw_number(std::to_string(leader.pid));
    out.key("since");
    out.string(rfc3339_utc(leader.since));
    out.end_object();
}

std::string encode_definitions(const LeaderIdentity &leader,
                               const std::vector<Schedule> &schedules) {
    std::string json;
    JsonWriter out(json);
    out.start_object();
    out.key("leader");
    write_leader(out, leader);
    out.key("schedules");
    out.start_array();
    for (const Schedule &schedule : schedules) {
        out.start_object();
        write_schedule_members(out, schedule.definition());
        out.end_object();
    }
    out.end_array();
    out.end_object();
    return json;
}

PublishedDefinitions decode_definitions(std::string_view body) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseValidateEncodingFlag>(body.data(), body.size());
    if (document.HasParseError())
        bad("body", std::string("not JSON: ") +
                        rapidjson::GetParseError_En(document.GetParseError()) + " at byte " +
                        std::to_string(document.GetErrorOffset()));
    if (!document.IsObject()) bad("body", "must be an object");
    PublishedDefinitions definitions;
    definitions.leader = read_leader(member(document, "leader", ""));
    const Value &schedules = member(document, "schedules", "");
    if (!schedules.IsArray()) bad("schedules", "must be an array");
    std::map<std::string, std::size_t> seen;
    for (rapidjson::SizeType i = 0; i < schedules.Size(); ++i) {
        const std::string path = "schedules[" + std::to_string(i) + "]";
        definitions.schedules.push_back(read_schedule(schedules[i], path));
        if (!seen.emplace(definitions.schedules.back().name, i).second)
            bad(path + ".name",
                "a second schedule named `" + definitions.schedules.back().name + "`");
    }
    return definitions;
}

std::vector<std::string> definition_differences(const std::vector<Schedule> &own,
                                                const PublishedDefinitions &leaders) {
    const std::string leader = "the leader's (connection '" + leaders.leader.connection + "')";
    std::vector<std::string> lines;
    for (const Schedule &schedule : own) {
        const ScheduleDefinition &here = schedule.definition();
        const auto there = std::find_if(
            leaders.schedules.begin(), leaders.schedules.end(),
            [&](const ScheduleDefinition &theirs) { return theirs.name == here.name; });
        if (there == leaders.schedules.end()) {
            lines.push_back("schedule `" + here.name + "` is defined here and not among " + leader +
                            " schedules: it does not fire while that process leads");
            continue;
        }
        const std::vector<std::string> fields = differing_fields(here, *there);
        if (fields.empty()) continue;
        std::string line = "schedule `" + here.name + "` differs from " + leader + ": ";
        for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "; " : "") + fields[i];
        lines.push_back(line + "; the leader's fires");
    }
    for (const ScheduleDefinition &theirs : leaders.schedules) {
        const bool defined_here = std::any_of(own.begin(), own.end(), [&](const Schedule &mine) {
            return mine.definition().name == theirs.name;
        });
        if (!defined_here)
            lines.push_back("schedule `" + theirs.name + "` is among " + leader +
                            " schedules and not defined here: it fires while that process leads");
    }
    return lines;
}

}  // namespace queuey
