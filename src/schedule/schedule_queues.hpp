// The broker side of the cluster's one scheduler (docs/scheduling.md): the election queue
// whose single active consumer leads, the definitions queue that holds the leader's
// schedules, the record queue of each schedule that holds its last fire, and the headers
// that make a fire its own record.
#pragma once

#include "../amqp_properties.hpp"
#include "../backend.hpp"
#include "../topology.hpp"
#include "fire_times.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace queuey {

// "queuey.schedule.leader", or "queuey.schedule.leader.{group}" for the schedulers of a
// group (applications that share a vhost and not their schedules): outside the names the
// Rust crates use. Single active consumer: its one consumer that holds a token delivery
// is the leader. At most one token waits (x-max-length 1, drop-head; the leader's
// unacknowledged token does not count), so every scheduler may publish one when it
// connects, and a lost token is replaced by the next that connects.
std::string leader_queue_name(std::string_view group);
// Throws Error(QY_ERR_INVALID_ARGUMENT, "group") for a group that makes no queue name
// (not UTF-8, a NUL, a definitions queue name longer than 255 bytes).
void check_scheduler_group(std::string_view group);
QueueSpec leader_queue_spec(std::string_view group);

// "queuey.schedule.definitions[.{group}]": the newest message routed to it is what the
// group's leader fires (schedule_definitions.hpp), written by each new leader
// (x-max-length 1, drop-head).
std::string definitions_queue_name(std::string_view group);
QueueSpec definitions_queue_spec(std::string_view group);

// "queuey.schedule.record.{name}": the newest message routed to it is the record
// (x-max-length 1, drop-head): a fire (routed there by BCC) or a record of fires skipped.
std::string record_queue_name(std::string_view schedule_name);
QueueSpec record_queue_spec(std::string_view schedule_name);

// On fires and records, kept in both queues: schedule_header and fire_time_header
// (amqp_properties.hpp).
// A fire's properties: the envelope's, and the two headers.
AmqpProperties fire_properties(const Envelope &fire, std::string_view schedule_name, FireTime time);
// A record of the fires up to `accounted_to` (skipped ones: nothing was enqueued).
AmqpProperties record_properties(std::string_view schedule_name, FireTime accounted_to);

// The time a record message says fires were accounted for up to; nullopt for a message
// that is not a record (a header missing or not an RFC 3339 UTC time).
std::optional<FireTime> recorded_time(const BrowsedMessage &message);

}  // namespace queuey
