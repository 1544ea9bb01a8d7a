// One connection's life of a scheduler: it stands in the election, and while it holds the
// token it fires (scheduler.hpp). The thread that owns the connection runs it; nothing
// here is shared but SchedulerState.
#pragma once

#include "../broker/amqp_session.hpp"
#include "scheduler.hpp"

#include <amqp.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace queuey {

class SchedulerSession {
public:
    SchedulerSession(AmqpSession &session, const SchedulerOptions &options, SchedulerState &state);
    // Stands in the election and, while leading, enqueues what is due, until
    // state.stopping. Throws ConnectionLost (or another Error) when the connection fails;
    // this process then leads no more.
    void run();

private:
    using Clock = std::chrono::steady_clock;

    // A schedule as its leader keeps it: fires up to accounted_to are enqueued or skipped.
    struct Lead {
        const Schedule *schedule;
        FireTime accounted_to;
        std::optional<FireTime> next;
    };

    void join_election();
    // Handles the frames that come within timeout (those queued by an RPC first).
    void pump(std::chrono::milliseconds timeout);
    void handle(const amqp_frame_t &frame);
    void on_token(std::uint64_t delivery_tag);
    // What a new leader does before its first fire: declares the queues it fires into and
    // the records, and reads where each schedule stopped.
    void take_lead();
    std::optional<FireTime> read_record(const std::string &record_queue);
    // The leader publishes what it fires; the others read it and log how theirs differ.
    void publish_definitions();
    void check_definitions();
    void fire_due(FireTime now);
    // One fire and its record; fire_due then moves the lead's accounted_to past it.
    void enqueue(const Schedule &schedule, FireTime fire, FireTime now);
    void record_skipped(Lead &lead, FireTime accounted_to);
    // Waits for the broker's confirm of publish number `tag` on the work channel; throws
    // Error when it refuses it or takes longer than the RPC timeout.
    void await_confirm(std::uint64_t tag, const std::string &what);
    void renew_token();
    std::chrono::milliseconds until_next_fire() const;

    AmqpSession &session_;
    const SchedulerOptions &options_;
    SchedulerState &state_;
    std::vector<Lead> leads_;
    bool records_read_ = false;  // on this connection: the leads are current
    std::optional<std::uint64_t> token_;
    Clock::time_point token_since_;
    Clock::time_point definitions_checked_;
    std::uint64_t published_ = 0;  // publishes on the work channel (confirm numbers)
    std::uint64_t confirmed_ = 0;  // every publish up to it is confirmed
    std::uint64_t refused_ = 0;    // the last publish the broker nacked
};

}  // namespace queuey
