#include "scheduler_session.hpp"

#include "../broker/amqp_failure.hpp"
#include "../envelope_codec.hpp"
#include "fire_id.hpp"
#include "missed_fires.hpp"
#include "schedule_definitions.hpp"
#include "schedule_queues.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <set>

namespace queuey {

using namespace std::chrono;

namespace {

constexpr amqp_channel_t election_channel = 1;
constexpr amqp_channel_t work_channel = 2;  // declares, gets, confirmed publishes
constexpr std::string_view token_consumer_tag = "queuey-scheduler";
// The longest a leader sleeps between looks at the clock and the stop flag.
constexpr milliseconds longest_nap{200};

FireTime fire_clock_now() { return floor<seconds>(system_clock::now()); }

QueueConfig config_for(const std::string &queue, const std::vector<QueueConfig> &configs) {
    for (const QueueConfig &config : configs)
        if (config.name == queue) return config;
    QueueConfig config;
    config.name = queue;
    return config;
}

}  // namespace

SchedulerSession::SchedulerSession(AmqpSession &session, const SchedulerOptions &options,
                                   SchedulerState &state)
    : session_(session), options_(options), state_(state) {
    for (const Schedule &schedule : options_.schedules)
        leads_.push_back({&schedule, FireTime{}, std::nullopt});
}

void SchedulerSession::run() {
    join_election();
    while (!state_.stopping.load()) {
        const FireTime now = fire_clock_now();
        if (token_ && records_read_) {
            fire_due(now);
            if (Clock::now() - token_since_ >= options_.token_renewal) renew_token();
        } else if (Clock::now() - definitions_checked_ >= options_.definitions_check) {
            check_definitions();
        }
        pump(token_ ? until_next_fire() : longest_nap);
    }
}

void SchedulerSession::join_election() {
    session_.open_channel(election_channel);
    session_.open_channel(work_channel);
    session_.confirm_select(work_channel);
    session_.declare_queue(work_channel, leader_queue_spec(options_.group));
    session_.declare_queue(work_channel, definitions_queue_spec(options_.group));
    // A token of its own: the queue keeps one waiting whatever the number of candidates,
    // and one that was lost (a broker that lost the queue) is replaced here.
    AmqpProperties token;
    token.message_id = "token";
    session_.publish(work_channel, leader_queue_name(options_.group), token,
                     BodyParts(std::string_view{}));
    session_.flush_publishes();
    await_confirm(++published_, "the election token");
    session_.qos(election_channel, 1);
    session_.consume(election_channel, leader_queue_name(options_.group),
                     std::string(token_consumer_tag));
    check_definitions();
}

void SchedulerSession::pump(milliseconds timeout) {
    amqp_frame_t frame;
    while (session_.next_queued_frame(frame)) handle(frame);
    if (!session_.has_buffered_input()) {
        pollfd socket{session_.socket_fd(), POLLIN, 0};
        if (::poll(&socket, 1, static_cast<int>(timeout.count())) > 0) session_.input_seen();
    }
    while (session_.next_frame(frame)) handle(frame);
}

void SchedulerSession::handle(const amqp_frame_t &frame) {
    if (frame.frame_type != AMQP_FRAME_METHOD) return;
    void *decoded = frame.payload.method.decoded;
    switch (frame.payload.method.id) {
        case AMQP_BASIC_DELIVER_METHOD: {
            const auto *deliver = static_cast<amqp_basic_deliver_t *>(decoded);
            amqp_message_t content = session_.read_content(frame.channel);
            amqp_destroy_message(&content);
            on_token(deliver->delivery_tag);
            return;
        }
        case AMQP_BASIC_ACK_METHOD: {
            const auto *ack = static_cast<amqp_basic_ack_t *>(decoded);
            confirmed_ = std::max<std::uint64_t>(confirmed_, ack->delivery_tag);
            return;
        }
        case AMQP_BASIC_NACK_METHOD: {
            const auto *nack = static_cast<amqp_basic_nack_t *>(decoded);
            refused_ = std::max<std::uint64_t>(refused_, nack->delivery_tag);
            confirmed_ = std::max<std::uint64_t>(confirmed_, nack->delivery_tag);
            return;
        }
        case AMQP_BASIC_RETURN_METHOD: {
            // Routed nowhere: the record queue is declared at the lead, so only a queue
            // deleted since; the confirm that follows counts the fire enqueued (as the
            // broker did), and the log says what went wrong.
            amqp_message_t content = session_.read_content(frame.channel);
            amqp_destroy_message(&content);
            options_.logger.error("scheduler: a fire was routed to no queue (deleted by hand?)");
            return;
        }
        case AMQP_BASIC_CANCEL_METHOD:
            throw ConnectionLost(QY_ERR_CONNECTION,
                                 "the broker cancelled the election consumer (was " +
                                     leader_queue_name(options_.group) + " deleted?)");
        case AMQP_CHANNEL_CLOSE_METHOD: {
            const auto *close = static_cast<amqp_channel_close_t *>(decoded);
            session_.confirm_channel_closed(frame.channel);
            throw ConnectionLost(status_for_reply_code(close->reply_code),
                                 "the broker closed a scheduler channel: " +
                                     reply_text(close->reply_code, close->reply_text));
        }
        case AMQP_CONNECTION_CLOSE_METHOD: {
            const auto *close = static_cast<amqp_connection_close_t *>(decoded);
            session_.confirm_connection_closed();
            throw ConnectionLost(QY_ERR_CONNECTION,
                                 "the broker closed the connection: " +
                                     reply_text(close->reply_code, close->reply_text));
        }
        default: return;
    }
}

void SchedulerSession::on_token(std::uint64_t delivery_tag) {
    token_ = delivery_tag;
    token_since_ = Clock::now();
    if (records_read_) return;  // its own token back after a renewal: it leads on
    state_.leading.store(true);
    state_.leads.fetch_add(1);
    options_.logger.info("scheduler: took the lead (connection '" +
                         options_.session.connection_name + "')");
    take_lead();
}

void SchedulerSession::take_lead() {
    std::set<std::string> declared;  // schedules may share a queue: one declare each
    for (const Lead &lead : leads_) {
        const std::string &queue = lead.schedule->definition().queue;
        if (declared.insert(queue).second) {
            const QueueConfig config = config_for(queue, options_.queues);
            session_.declare_queue(work_channel, work_queue_spec(config));
            session_.declare_queue(work_channel, dead_letter_queue_spec(config));
        }
        session_.declare_queue(work_channel, record_queue_spec(lead.schedule->definition().name));
    }
    const FireTime now = fire_clock_now();
    for (Lead &lead : leads_) {
        // Never recorded: the schedule starts now, its first fire the next one.
        lead.accounted_to =
            read_record(record_queue_name(lead.schedule->definition().name)).value_or(now);
        lead.next = lead.schedule->fire_times().next_after(lead.accounted_to);
    }
    // Every record goes back before anything is published: a record taken and not
    // returned would come back after the new one.
    session_.requeue_unacknowledged(work_channel);
    publish_definitions();
    records_read_ = true;
}

void SchedulerSession::publish_definitions() {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const LeaderIdentity identity{options_.session.connection_name, host, ::getpid(),
                                  fire_clock_now()};
    const std::string body = encode_definitions(identity, options_.schedules);
    session_.publish(work_channel, definitions_queue_name(options_.group), AmqpProperties{},
                     BodyParts(body));
    session_.flush_publishes();  // body stays until here
    await_confirm(++published_, "the definitions");
}

void SchedulerSession::check_definitions() {
    definitions_checked_ = Clock::now();
    // The newest leader's: a requeue may briefly leave two messages.
    std::optional<PublishedDefinitions> newest;
    while (const auto message =
               session_.get(work_channel, definitions_queue_name(options_.group))) {
        try {
            PublishedDefinitions read = decode_definitions(message->body);
            if (!newest || read.leader.since >= newest->leader.since) newest = std::move(read);
        } catch (const Error &error) {
            const std::string line = "scheduler: the leader's definitions in " +
                                     definitions_queue_name(options_.group) +
                                     " do not read: " + error.what();
            if (state_.logged_differences.insert(line).second) options_.logger.warn(line);
        }
    }
    session_.requeue_unacknowledged(work_channel);
    if (!newest) return;
    for (const std::string &difference : definition_differences(options_.schedules, *newest))
        if (state_.logged_differences.insert(difference).second)
            options_.logger.warn("scheduler: " + difference);
}

std::optional<FireTime> SchedulerSession::read_record(const std::string &record_queue) {
    // The newest of what the queue holds (one message, but a requeue may briefly leave two).
    std::optional<FireTime> newest;
    while (const auto message = session_.get(work_channel, record_queue))
        if (const auto time = recorded_time(*message); time && (!newest || *time > *newest))
            newest = time;
    return newest;
}

void SchedulerSession::fire_due(FireTime now) {
    for (Lead &lead : leads_) {
        if (!lead.next || *lead.next > now) continue;
        const Schedule &schedule = *lead.schedule;
        const DueFires due =
            due_fires(schedule.fire_times(), schedule.definition().missed, lead.accounted_to, now);
        for (const FireTime fire : due.enqueue) enqueue(schedule, fire, now);
        if (due.skipped > 0) {
            state_.skipped.fetch_add(due.skipped);
            options_.logger.warn("scheduler: skipped " + std::to_string(due.skipped) +
                                 " missed fire(s) of '" + schedule.definition().name + "'");
            if (due.enqueue.empty()) record_skipped(lead, now);
        }
        lead.accounted_to = now;
        lead.next = schedule.fire_times().next_after(now);
    }
}

void SchedulerSession::enqueue(const Schedule &schedule, FireTime fire, FireTime now) {
    const std::string &name = schedule.definition().name;
    const Envelope envelope = schedule.envelope_for(fire);
    session_.publish_with_bcc(work_channel, schedule.definition().queue,
                              fire_properties(envelope, name, fire), {record_queue_name(name)},
                              encode_envelope(envelope));
    await_confirm(++published_, "fire " + rfc3339_utc(fire) + " of '" + name + "'");
    state_.fires.fetch_add(1);
    if (now - fire > on_time_grace(schedule.fire_times())) state_.caught_up.fetch_add(1);
}

void SchedulerSession::record_skipped(Lead &lead, FireTime accounted_to) {
    const std::string &name = lead.schedule->definition().name;
    const std::string record = record_queue_name(name);
    session_.publish(work_channel, record, record_properties(name, accounted_to),
                     BodyParts(std::string_view{}));
    session_.flush_publishes();
    await_confirm(++published_, "the record of '" + name + "'");
}

void SchedulerSession::await_confirm(std::uint64_t tag, const std::string &what) {
    const auto deadline = Clock::now() + options_.session.rpc_timeout;
    while (confirmed_ < tag) {
        if (Clock::now() >= deadline)
            throw ConnectionLost(QY_ERR_TIMEOUT, "no confirm of " + what + " from the broker");
        pump(longest_nap);
    }
    if (refused_ == tag) throw Error(QY_ERR_BROKER, "", "the broker refused " + what);
}

void SchedulerSession::renew_token() {
    // The broker hands it straight back to its one active consumer, this one (on_token).
    session_.reject(election_channel, *std::exchange(token_, std::nullopt), /*requeue=*/true);
}

milliseconds SchedulerSession::until_next_fire() const {
    const auto now = system_clock::now();
    milliseconds wait = longest_nap;
    for (const Lead &lead : leads_)
        if (lead.next) wait = std::min(wait, ceil<milliseconds>(*lead.next - now));
    return std::max(wait, milliseconds{0});
}

}  // namespace queuey
