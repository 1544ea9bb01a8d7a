#include "schedule_command.hpp"

#include "utf8_text.hpp"

#include <rapidjson/document.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace queuey_cli {

namespace {

using rapidjson::Value;

// The listing is the library's own JSON: a member missing or of another type reads as ""
// or 0 rather than failing the command.
std::string text_of(const Value &object, const char *name) {
    if (!object.IsObject()) return "";
    const auto found = object.FindMember(name);
    if (found == object.MemberEnd() || !found->value.IsString()) return "";
    return terminal_text({found->value.GetString(), found->value.GetStringLength()});
}

std::int64_t number_of(const Value &object, const char *name) {
    if (!object.IsObject()) return 0;
    const auto found = object.FindMember(name);
    return found != object.MemberEnd() && found->value.IsInt64() ? found->value.GetInt64() : 0;
}

std::string leader_line(const Value &listing) {
    const std::int64_t schedulers = number_of(listing, "schedulers");
    const std::string running = std::to_string(schedulers) + " scheduler(s) in the election";
    if (!listing.HasMember("leader") || !listing["leader"].IsObject())
        return "no scheduler has led yet; " + running;
    const Value &who = listing["leader"];
    const std::string identity =
        "'" + text_of(who, "connection") + "' (host " + text_of(who, "host") + ", pid " +
        std::to_string(number_of(who, "pid")) + "), since " + text_of(who, "since");
    if (schedulers == 0) return "no scheduler runs now; the last leader was " + identity;
    return "leader: " + identity + "; " + running;
}

std::string schedule_line(const Value &schedule) {
    const std::string when =
        schedule.HasMember("cron")
            ? "cron `" + text_of(schedule, "cron") + "` in " + text_of(schedule, "time_zone")
            : "every " + std::to_string(number_of(schedule, "interval_ms")) + " ms";
    const std::string last = text_of(schedule, "last_fire");
    const std::string next = text_of(schedule, "next_fire");
    return text_of(schedule, "name") + ": " + when + " -> " + text_of(schedule, "queue") + " (" +
           text_of(schedule, "job_type") + "); last fire " + (last.empty() ? "none" : last) +
           ", next " + (next.empty() ? "none" : next);
}

void list(const GlobalOptions &global, const std::string &group) {
    queuey::Client client = global.connect();
    const std::string json = client.list_schedules(group);
    if (global.json) {
        std::printf("%s\n", json.c_str());  // one object, on one line
        return;
    }
    rapidjson::Document listing;
    listing.Parse(json.data(), json.size());
    if (listing.HasParseError() || !listing.IsObject())
        throw std::runtime_error("the library's schedule listing is no JSON object");
    std::printf("%s\n", leader_line(listing).c_str());
    std::size_t shown = 0;
    if (listing.HasMember("schedules") && listing["schedules"].IsArray())
        for (const Value &schedule : listing["schedules"].GetArray()) {
            std::printf("%s\n", schedule_line(schedule).c_str());
            ++shown;
        }
    std::printf("%zu schedule(s)\n", shown);
}

}  // namespace

void add_schedule_command(CLI::App &app, const GlobalOptions &global) {
    CLI::App *schedule = app.add_subcommand(
        "schedule", "The periodic jobs that queuey schedulers fire (docs/scheduling.md).");
    schedule->require_subcommand(1);
    CLI::App *list_command = schedule->add_subcommand(
        "list",
        "Each schedule the group's leader fires, with its last and next fire, and the leader "
        "(its connection name, host and pid); --json prints the listing as one JSON object.");
    auto group = std::make_shared<std::string>();
    list_command->add_option("--group", *group,
                             "the schedulers' group (qy_scheduler_options_set_group); default "
                             "the vhost's default group");
    list_command->callback([&global, group] { list(global, *group); });
}

}  // namespace queuey_cli
