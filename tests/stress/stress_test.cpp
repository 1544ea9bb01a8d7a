// Issue 42, item 4: queuey under stress on a real broker, every job counted.
//
// Through the C API only (libqueuey.so, queuey.h): 8 threads enqueue N jobs each
// (confirmed, one qy_producer each on one client); 4 threads each create a qy_consumer
// on a second client, take a few deliveries, settle them with every settle the API has
// (ack, retry and defer with a delay, dead-letter, and giving a delivery back by freeing
// it unsettled), sometimes free the consumer with a delivery still unsettled (freed after
// it), free the consumer, and again. Meanwhile:
//
// - Toxiproxy, between both clients and the broker, resets their connections 20 times,
//   spaced over the run by its progress: the odd ones by a reset_peer toxic (timeout 0:
//   a TCP RST to both sides), removed once a connection was lost; the even ones by
//   disabling and enabling the proxy (every connection through it closed, the listener
//   too for that moment).
// - The broker closes consumer channels: the node is the test's own, with
//   consumer_timeout = 3000 ms checked every 250 ms (channel_tick_interval). After
//   resets 5, 10, 15 and 20 each of the 4 consumers holds a delivery unacknowledged
//   until the broker closed their channels ("PRECONDITION_FAILED - delivery
//   acknowledgement on channel N timed out"), which gives back every job of those
//   channels while the connection stays (queuey opens them again); the next reset
//   waits for it.
//
// Each job's payload carries its number; its plan (tally.hpp) picks the settles by
// number. The test counts every enqueue (OK or failed), every run, every end (the final
// settle returned OK: acked, or dead-lettered) and every run after an end (a duplicate:
// allowed, bounded). After the faults it waits, by condition and with a deadline, until
// every job enqueued OK has ended and its queues are empty, then checks that none was
// lost, that q.dead holds exactly the jobs that ended dead-lettered, each with its
// plan's reason, and prints a table of the counts and of the longest time of each call.
//
// QUEUEY_STRESS_JOBS: N, the jobs per producing thread (meson passes a smaller N to
// sanitizer builds); QUEUEY_STRESS_DEADLINE_S: how long the run may take before it fails
// (default 300). QUEUEY_TOXIPROXY_SERVER: the Toxiproxy server (meson passes where
// scripts/lib/deps.sh installs it). The node runs in <build>/stress-broker, the
// RabbitMQ version of QUEUEY_RABBITMQ_VERSION (scripts/broker), and is stopped after.
#include "broker_fixture.hpp"
#include "capi_support.hpp"
#include "tally.hpp"
#include "toxiproxy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace queuey_stress {
namespace {

using namespace std::chrono_literals;
using namespace queuey_it::capi;
using queuey_it::BrokerEndpoint;

constexpr int producers = 8;
constexpr int consumers = 4;
constexpr int resets = 20;
constexpr int timeout_holds = 4;  // windows where the consumers hold a delivery past the timeout
constexpr std::uint16_t prefetch = 8;
constexpr auto consumer_timeout = 3000ms;  // the node's consumer_timeout
constexpr std::uint64_t delay_ms = 1000;   // of retries and deferrals: q.deferred.1000
constexpr std::uint32_t publish_timeout_ms = 10000;
constexpr std::uint32_t next_timeout_ms = 200;
constexpr std::uint64_t backlog = 256;  // enqueued and not ended, at most, before a pause
const char *const proxy_name = "amqp";
// The producing client's publishing connection, the consuming client's two.
constexpr std::uint64_t connections_through_proxy = 3;

std::uint64_t env_number(const char *name, std::uint64_t fallback) {
    const char *value = std::getenv(name);
    if (value == nullptr || *value == '\0') return fallback;
    return std::strtoull(value, nullptr, 10);
}

double ms_of(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The job number in a payload {"n":K}; UINT64_MAX when there is none.
std::uint64_t number_of(const qy_envelope *env) {
    std::size_t len = 0;
    const char *payload = qy_envelope_payload(env, &len);
    if (payload == nullptr) return UINT64_MAX;
    const std::string text(payload, len);
    const auto at = text.find("\"n\":");
    if (at == std::string::npos) return UINT64_MAX;
    return std::strtoull(text.c_str() + at + 4, nullptr, 10);
}

// A client with the test's settings; logs lines to logs (nullptr: silent).
Client open_client(const std::string &url, const std::string &name, LogTally *logs) {
    Options options = new_options();
    qy_client_options *opts = options.get();
    const auto must = [](const Outcome &outcome, const char *what) {
        if (!outcome.ok()) throw std::runtime_error(std::string(what) + ": " + outcome.message);
    };
    must(call([&](qy_error **e) {
             return qy_client_options_set_connection_name(opts, name.c_str(), e);
         }),
         "connection name");
    must(call([&](qy_error **e) {
             return qy_client_options_set_reconnect(opts, -1, 100, 2.0, 1000, 1, e);
         }),
         "reconnect");
    must(call([&](qy_error **e) {
             return qy_client_options_set_publish_timeout_ms(opts, publish_timeout_ms, e);
         }),
         "publish timeout");
    must(call([&](qy_error **e) {
             return qy_client_options_set_log(opts, logs != nullptr ? &LogTally::on_line : nullptr,
                                              logs, nullptr, e);
         }),
         "log");
    Client client;
    must(connect(url, opts, client), ("connect " + name).c_str());
    return client;
}

void declare(qy_client *client, const std::string &queue) {
    QueueConfig config = new_config(queue);
    if (qy_queue_config_set_prefetch(config.get(), prefetch, nullptr) != QY_OK)
        throw std::runtime_error("prefetch");
    const Outcome declared =
        call([&](qy_error **e) { return qy_client_declare(client, config.get(), e); });
    if (!declared.ok()) throw std::runtime_error("declare " + queue + ": " + declared.message);
}

// What a browse saw of one message.
struct Seen {
    std::uint64_t n = UINT64_MAX;
    std::string reason;
    std::string original_queue;
};

std::vector<Seen> browse(qy_client *client, const std::string &queue) {
    std::vector<Seen> seen;
    const auto visit = [](const qy_message *message, void *user_data) -> int {
        Seen one;
        if (const qy_envelope *env = qy_message_envelope(message)) one.n = number_of(env);
        one.reason = qy_message_reason(message);
        one.original_queue = qy_message_original_queue(message);
        static_cast<std::vector<Seen> *>(user_data)->push_back(std::move(one));
        return 0;
    };
    const Outcome browsed = call([&](qy_error **e) {
        return qy_client_browse(client, queue.c_str(), nullptr, 0, visit, &seen, e);
    });
    if (!browsed.ok()) throw std::runtime_error("browse " + queue + ": " + browsed.message);
    return seen;
}

// Messages ready in queue; 0 for a queue that does not exist (a hold queue that expired).
std::uint64_t ready_in(qy_client *client, const std::string &queue) {
    std::uint64_t ready = 0;
    const Outcome counted = call([&](qy_error **e) {
        return qy_client_queue_counts(client, queue.c_str(), &ready, nullptr, e);
    });
    if (counted.status == QY_ERR_NOT_FOUND) return 0;
    if (!counted.ok()) return UINT64_MAX;
    return ready;
}

class Stress : public ::testing::Test {
protected:
    static std::string dir() { return std::string(QUEUEY_BUILD_ROOT) + "/stress-broker"; }

    static void SetUpTestSuite() {
        try {
            broker_ = queuey_it::start_private_broker(
                dir(), "QUEUEY_BROKER_CONF='consumer_timeout = " +
                           std::to_string(consumer_timeout.count()) +
                           "' QUEUEY_BROKER_ADVANCED_CONFIG='[{rabbit, [{channel_tick_interval, "
                           "250}]}].'");
            for (const auto &[key, value] : queuey_it::read_env_file(dir() + "/env"))
                if (key == "QUEUEY_RABBITMQ_VERSION") version_ = value;
        } catch (const std::exception &e) {
            failure_ = e.what();
        }
    }
    static void TearDownTestSuite() { queuey_it::stop_private_broker(dir()); }

    void SetUp() override {
        ASSERT_TRUE(failure_.empty()) << "no broker of the stress test's own: " << failure_;
    }

    static inline std::optional<BrokerEndpoint> broker_;
    static inline std::string version_ = "?";
    static inline std::string failure_;
};

// The run: its threads, the faults, and what they counted.
class StressRun {
public:
    StressRun(const BrokerEndpoint &broker, std::string version, std::string toxiproxy_path,
              std::uint64_t jobs_per_producer, Clock::duration budget)
        : broker_(broker),
          version_(std::move(version)),
          toxiproxy_path_(std::move(toxiproxy_path)),
          per_producer_(jobs_per_producer),
          jobs_(jobs_per_producer * producers),
          start_(Clock::now()),
          deadline_(start_ + budget) {}

    void go();
    void report_and_check();

private:
    void produce(int index);
    void consume(int index);
    void inject_faults();
    // Runs one delivery by its job's plan, and frees it.
    void run_delivery(qy_delivery *delivery);
    bool take_hold();
    void hold_past_timeout(qy_delivery *delivery, std::uint64_t n);
    void settle_final(qy_delivery *delivery, std::uint64_t n, Plan plan);
    void reset_connections(int index);
    // Has every consumer hold a delivery until the broker closed their channels for the
    // consumer timeout, and waits until they did (no reset, nothing consumed meanwhile).
    void hold_once();

    const BrokerEndpoint &broker_;
    const std::string version_;
    const std::string toxiproxy_path_;
    const std::uint64_t per_producer_;
    JobTally jobs_;
    CallLog calls_;
    LogTally logs_;
    std::string queue_;
    std::optional<Toxiproxy> toxiproxy_;
    Client checker_, producing_, consuming_;
    std::atomic<bool> stop_consumers_{false};
    // The hold windows (hold_once): guarded by holds_mutex_.
    std::mutex holds_mutex_;
    std::condition_variable holds_changed_;
    int holds_wanted_ = 0;                  // deliveries still to hold in this window
    int holds_done_ = 0;                    // holds that ended, in all windows
    std::uint64_t window_closes_from_ = 0;  // timeout closes logged before this window
    std::vector<std::uint64_t> closes_per_window_;
    std::atomic<int> leftovers_freed_after_consumer_{0};
    int resets_done_ = 0;
    std::string fault_error_;  // why the faults stopped early
    std::vector<std::uint64_t> lost_per_reset_;
    bool all_ended_ = false;
    bool quiet_ = false;
    const Clock::time_point start_;
    const Clock::time_point deadline_;
    Clock::time_point faults_over_{}, ended_at_{}, stopped_at_{};
    std::vector<Seen> dead_, left_in_queue_;
    std::uint64_t left_held_ = 0;
};

void StressRun::go() {
    toxiproxy_.emplace(toxiproxy_path_, std::string(QUEUEY_BUILD_ROOT) + "/stress-toxiproxy.log");
    const int proxy_port = toxiproxy_->add_proxy(proxy_name, broker_.port);
    const std::string proxied = queuey_it::url_with(broker_, "amqp", broker_.user, broker_.password,
                                                    "127.0.0.1", proxy_port);
    queue_ = queuey_it::unique_name("q");
    checker_ = open_client(broker_.url, "stress-checker", nullptr);  // not through the proxy
    producing_ = open_client(proxied, "stress-producers", &logs_);
    consuming_ = open_client(proxied, "stress-consumers", &logs_);
    for (qy_client *client : {checker_.get(), producing_.get(), consuming_.get()})
        declare(client, queue_);

    std::vector<std::thread> producing, consuming;
    for (int i = 0; i < consumers; ++i) consuming.emplace_back([this, i] { consume(i); });
    for (int i = 0; i < producers; ++i) producing.emplace_back([this, i] { produce(i); });
    try {
        inject_faults();
    } catch (const std::exception &e) {
        fault_error_ = e.what();
    }
    faults_over_ = Clock::now();
    for (std::thread &thread : producing) thread.join();

    // Every job enqueued OK reaches its end, then its queue and hold queue are empty.
    all_ended_ = jobs_.wait_until(
        [&](const JobTally::Totals &t) {
            return t.enqueue_calls == jobs_.jobs() && t.ended_ok_jobs == t.enqueued_ok;
        },
        deadline_);
    ended_at_ = Clock::now();
    if (all_ended_) {
        const auto left = std::max<Clock::duration>(deadline_ - Clock::now(), 1s);
        quiet_ = queuey_it::eventually(
            [&] {
                return ready_in(checker_.get(), queue_) == 0 &&
                       ready_in(checker_.get(), queue_ + ".deferred.1000") == 0;
            },
            std::chrono::duration_cast<std::chrono::milliseconds>(left), 100ms);
    }
    stop_consumers_ = true;
    for (std::thread &thread : consuming) thread.join();
    stopped_at_ = Clock::now();
    producing_.reset();  // sends the settles that returned OK, as qy_client_free says
    consuming_.reset();
    toxiproxy_.reset();

    dead_ = browse(checker_.get(), queue_ + ".dead");
    left_in_queue_ = browse(checker_.get(), queue_);
    left_held_ = ready_in(checker_.get(), queue_ + ".deferred.1000");
    // The queues go with the node, which the suite stops.
}

void StressRun::produce(int index) {
    qy_producer *handle = nullptr;
    if (qy_producer_new(producing_.get(), &handle, nullptr) != QY_OK) {
        ADD_FAILURE() << "qy_producer_new failed";
        return;
    }
    Producer producer(handle);
    for (std::uint64_t i = 0; i < per_producer_; ++i) {
        const std::uint64_t n = static_cast<std::uint64_t>(index) * per_producer_ + i;
        if (i % 16 == 0) {  // keep the backlog short, so that the faults meet both sides
            jobs_.wait_until(
                [](const JobTally::Totals &t) { return t.enqueued_ok - t.ended_ok_jobs < backlog; },
                deadline_);
        }
        Envelope env = new_job(queue_, "{\"n\":" + std::to_string(n) + "}");
        const qy_status status = timed(calls_, Call::enqueue, [&](qy_error **e) {
            return qy_producer_enqueue(producer.get(), env.get(), e);
        });
        jobs_.enqueued(n, status);
    }
}

bool StressRun::take_hold() {
    std::lock_guard lock(holds_mutex_);
    if (holds_wanted_ == 0) return false;
    holds_wanted_--;
    return true;
}

void StressRun::hold_past_timeout(qy_delivery *delivery, std::uint64_t n) {
    // Unacknowledged until the broker closed every consumer's channel for its consumer
    // timeout (they all hold one), or a connection was lost first, or the timeout's
    // check is long overdue; then acked: refused as stale, as the broker gave the job back.
    std::uint64_t from = 0;
    {
        std::lock_guard lock(holds_mutex_);
        from = window_closes_from_;
    }
    const std::uint64_t lost = logs_.counts().lost;
    logs_.wait_until(
        [&](const LogTally::Counts &c) {
            return c.timeout_closes >= from + consumers || c.lost > lost;
        },
        Clock::now() + 2 * consumer_timeout + 5s);
    const qy_status status = timed(calls_, Call::ack_after_timeout,
                                   [&](qy_error **e) { return qy_delivery_ack(delivery, e); });
    if (status == QY_OK) jobs_.ended(n, false);
    {
        std::lock_guard lock(holds_mutex_);
        holds_done_++;
    }
    holds_changed_.notify_all();
}

void StressRun::settle_final(qy_delivery *delivery, std::uint64_t n, Plan plan) {
    if (ends_dead(plan)) {
        const qy_status status = timed(calls_, Call::dead_letter, [&](qy_error **e) {
            return qy_delivery_dead_letter(delivery, dead_reason(plan), e);
        });
        if (status == QY_OK) jobs_.ended(n, true);
    } else {
        const qy_status status =
            timed(calls_, Call::ack, [&](qy_error **e) { return qy_delivery_ack(delivery, e); });
        if (status == QY_OK) jobs_.ended(n, false);
    }
}

void StressRun::run_delivery(qy_delivery *delivery) {
    const qy_envelope *env = qy_delivery_envelope(delivery);
    const std::uint64_t n = number_of(env);
    const JobTally::Run run = jobs_.ran(n, qy_delivery_redelivered(delivery) != 0);
    if (!run.known) {  // not the test's: counted, and acked out of the way
        qy_delivery_ack(delivery, nullptr);
        qy_delivery_free(delivery);
        return;
    }
    const Plan plan = plan_of(n);
    if (plan == Plan::ack && take_hold()) {
        hold_past_timeout(delivery, n);
        qy_delivery_free(delivery);
        return;
    }
    switch (plan) {
        case Plan::give_back_then_ack:
            if (!run.given_back) {
                jobs_.gave_back(n);
                timed_void(calls_, Call::give_back, [&] { qy_delivery_free(delivery); });
                return;
            }
            settle_final(delivery, n, plan);
            break;
        case Plan::retry_then_ack:
        case Plan::retry_then_dead_letter:
            if (qy_envelope_attempt(env) <= 1) {
                qy_envelope *next = nullptr;
                if (qy_envelope_next_attempt(env, &next, nullptr) == QY_OK) {
                    timed(calls_, Call::retry, [&](qy_error **e) {
                        return qy_delivery_retry(delivery, next, delay_ms, e);
                    });
                }
                qy_envelope_free(next);
            } else {
                settle_final(delivery, n, plan);
            }
            break;
        case Plan::defer_then_ack:
            if (qy_envelope_deferrals(env) == 0) {
                qy_envelope *next = nullptr;
                if (qy_envelope_deferred(env, 10, &next, nullptr) == QY_OK) {
                    timed(calls_, Call::defer, [&](qy_error **e) {
                        return qy_delivery_defer(delivery, next, delay_ms, e);
                    });
                }
                qy_envelope_free(next);
            } else {
                settle_final(delivery, n, plan);
            }
            break;
        case Plan::ack:
        case Plan::dead_letter: settle_final(delivery, n, plan); break;
    }
    qy_delivery_free(delivery);  // after a failed settle: back to its queue
}

void StressRun::consume(int index) {
    std::mt19937 random(static_cast<unsigned>(index) + 1);
    std::uniform_int_distribution<int> round_size(1, 3 * prefetch);
    for (std::uint64_t round = 1; !stop_consumers_; ++round) {
        qy_consumer *consumer = nullptr;
        const qy_status subscribed = timed(calls_, Call::consumer_new, [&](qy_error **e) {
            return qy_consumer_new(consuming_.get(), queue_.c_str(), &consumer, e);
        });
        if (subscribed != QY_OK) {
            std::this_thread::sleep_for(50ms);  // a pause before the next try, not a wait
            continue;
        }
        // Every fourth round leaves its last delivery unsettled until its consumer is freed.
        const bool leave_last = round % 4 == 0;
        const int size = round_size(random);
        qy_delivery *left = nullptr;
        for (int taken = 0; taken < size && !stop_consumers_; ++taken) {
            qy_delivery *delivery = nullptr;
            const qy_status got = timed(calls_, Call::consumer_next, [&](qy_error **e) {
                return qy_consumer_next(consumer, next_timeout_ms, &delivery, e);
            });
            if (got != QY_OK) break;
            if (delivery == nullptr) continue;
            if (leave_last && taken == size - 1) {
                const JobTally::Run run = jobs_.ran(number_of(qy_delivery_envelope(delivery)),
                                                    qy_delivery_redelivered(delivery) != 0);
                static_cast<void>(run);
                left = delivery;
                break;
            }
            run_delivery(delivery);
        }
        timed_void(calls_, Call::consumer_free, [&] { qy_consumer_free(consumer); });
        if (left != nullptr) {
            leftovers_freed_after_consumer_++;
            timed_void(calls_, Call::free_after_consumer, [&] { qy_delivery_free(left); });
        }
    }
}

void StressRun::reset_connections(int index) {
    const std::uint64_t lost_before = logs_.counts().lost;
    if (index % 2 == 1) {
        toxiproxy_->add_toxic(proxy_name, "reset", "reset_peer", "downstream", "{\"timeout\":0}");
        // Until every connection through the proxy went, or a second after the first did
        // (an idle one may see no data, so no reset, meanwhile).
        if (logs_.wait_until([&](const LogTally::Counts &c) { return c.lost > lost_before; },
                             Clock::now() + 5s)) {
            logs_.wait_until(
                [&](const LogTally::Counts &c) {
                    return c.lost >= lost_before + connections_through_proxy;
                },
                Clock::now() + 1s);
        }
        toxiproxy_->remove_toxic(proxy_name, "reset");
    } else {
        toxiproxy_->set_enabled(proxy_name, false);
        toxiproxy_->set_enabled(proxy_name, true);
    }
    // Back before the next: every connection lost reconnected.
    logs_.wait_until(
        [&](const LogTally::Counts &c) { return c.lost > lost_before && c.reconnected >= c.lost; },
        std::min(deadline_, Clock::now() + 60s));
    lost_per_reset_.push_back(logs_.counts().lost - lost_before);
}

void StressRun::hold_once() {
    std::unique_lock lock(holds_mutex_);
    window_closes_from_ = logs_.counts().timeout_closes;
    const int done_before = holds_done_;
    holds_wanted_ = consumers;
    holds_changed_.wait_until(lock, std::min(deadline_, Clock::now() + 2 * consumer_timeout + 10s),
                              [&] { return holds_done_ - done_before == consumers; });
    holds_wanted_ = 0;  // those not taken in time are not wanted any more
    closes_per_window_.push_back(logs_.counts().timeout_closes - window_closes_from_);
}

void StressRun::inject_faults() {
    const std::uint64_t total = jobs_.jobs();
    for (int i = 1; i <= resets; ++i) {
        // Spaced over the run: the i-th once i/22 of the jobs have ended.
        const std::uint64_t target = static_cast<std::uint64_t>(i) * total / (resets + 2);
        const bool due = jobs_.wait_until(
            [&](const JobTally::Totals &t) { return t.ended_jobs + t.enqueue_failed >= target; },
            deadline_);
        if (!due) return;
        reset_connections(i);
        resets_done_++;
        if (i % (resets / timeout_holds) == 0) hold_once();  // after resets 5, 10, 15, 20
    }
}

std::string statuses(const std::map<qy_status, std::uint64_t> &failed) {
    std::string text;
    for (const auto &[status, count] : failed)
        text += std::string(text.empty() ? "" : ", ") + qy_status_name(status) + " " +
                std::to_string(count);
    return text;
}

void StressRun::report_and_check() {
    const JobTally::Totals t = jobs_.totals();
    const LogTally::Counts logged = logs_.counts();
    std::lock_guard holds_lock(holds_mutex_);
    const std::vector<JobRecord> records = jobs_.records();

    // Per job: lost (enqueued OK, no end), ended with the wrong outcome, failed enqueues
    // that ran anyway, jobs with duplicate runs.
    std::vector<std::uint64_t> lost, wrong_outcome, not_enqueued_but_ended;
    std::uint64_t ran_despite_failure = 0, jobs_with_duplicates = 0, succeeded = 0, dead = 0;
    std::set<std::uint64_t> ended_dead;
    for (std::uint64_t n = 0; n < records.size(); ++n) {
        const JobRecord &job = records[n];
        const bool enqueued_ok = job.enqueue_tried && job.enqueue == QY_OK;
        if (enqueued_ok && job.ends == 0) lost.push_back(n);
        if (job.enqueue_tried && job.enqueue != QY_OK && job.runs > 0) ran_despite_failure++;
        if (!job.enqueue_tried && job.runs > 0) not_enqueued_but_ended.push_back(n);
        if (job.runs_after_end > 0) jobs_with_duplicates++;
        if (job.ends == 0) continue;
        (job.dead ? dead : succeeded)++;
        if (job.dead) ended_dead.insert(n);
        if (job.dead != ends_dead(plan_of(n))) wrong_outcome.push_back(n);
    }
    // q.dead: exactly the jobs that ended dead-lettered, each with its plan's reason.
    std::set<std::uint64_t> in_dead;
    std::vector<std::string> bad_dead_letters;
    for (const Seen &seen : dead_) {
        in_dead.insert(seen.n);
        if (seen.n >= records.size() || seen.reason != dead_reason(plan_of(seen.n)) ||
            seen.original_queue != queue_)
            bad_dead_letters.push_back("n=" + std::to_string(seen.n) + " reason '" + seen.reason +
                                       "' from '" + seen.original_queue + "'");
    }
    std::vector<std::uint64_t> left_not_ended;
    for (const Seen &seen : left_in_queue_)
        if (seen.n >= records.size() || records[seen.n].ends == 0) left_not_ended.push_back(seen.n);

    const auto secs = [&](Clock::time_point at) { return ms_of(at - start_) / 1000.0; };
    std::ostringstream out;
    out << "\n== stress: RabbitMQ " << version_ << ", " << producers << " producers x "
        << per_producer_ << " jobs, " << consumers << " consumers (prefetch " << prefetch
        << "), consumer_timeout " << consumer_timeout.count() << " ms\n";
    char line[512];
    std::snprintf(line, sizeof line,
                  "time: faults over at %.1f s, every job ended at %.1f s, consumers stopped at "
                  "%.1f s\n",
                  secs(faults_over_), secs(ended_at_), secs(stopped_at_));
    out << line;
    std::string per_window;
    for (std::uint64_t closes : closes_per_window_)
        per_window += (per_window.empty() ? "" : " ") + std::to_string(closes);
    std::string per_reset;
    for (std::uint64_t lost_now : lost_per_reset_)
        per_reset += (per_reset.empty() ? "" : " ") + std::to_string(lost_now);
    out << "faults: " << resets_done_ << " of " << resets
        << " Toxiproxy resets (odd: reset_peer toxic, even: proxy disabled+enabled; connections "
           "lost by each: "
        << per_reset << ")\n"
        << "        broker channel closes for the consumer timeout: " << logged.timeout_closes
        << " (in each of " << closes_per_window_.size() << " windows where the " << consumers
        << " consumers held a delivery: " << per_window
        << "), other channel closes: " << logged.other_closes << "\n"
        << "        logged: connection lost " << logged.lost << ", reconnected "
        << logged.reconnected << ", reconnect attempts failed " << logged.reconnect_failed
        << ", other warnings " << logged.other_warnings << "\n";
    out << "jobs:   " << jobs_.jobs() << " enqueue calls " << t.enqueue_calls << ": OK "
        << t.enqueued_ok << ", failed " << t.enqueue_failed << " (of which ran anyway "
        << ran_despite_failure << ")\n"
        << "        runs " << t.runs << " (redelivered " << t.redelivered << ", foreign "
        << t.foreign_runs << "), deliveries left unsettled at a consumer's free "
        << leftovers_freed_after_consumer_ << "\n"
        << "        ended: succeeded " << succeeded << ", dead-lettered " << dead
        << "; LOST (enqueued OK, no end) " << lost.size() << "\n"
        << "        duplicates: runs after the job's end " << t.runs_after_end << " (of "
        << jobs_with_duplicates << " jobs), ends beyond the first " << (t.ends - t.ended_jobs)
        << "\n"
        << "        q.dead " << dead_.size() << " messages, " << in_dead.size()
        << " distinct jobs; left in q after the stop " << left_in_queue_.size()
        << " (duplicates of ended jobs), in q.deferred.1000 " << left_held_ << "\n";
    std::snprintf(line, sizeof line, "%-38s %8s %8s %10s  %s\n", "call", "calls", "ok", "max ms",
                  "failed");
    out << line;
    for (int c = 0; c < static_cast<int>(Call::count_); ++c) {
        const Call call = static_cast<Call>(c);
        const CallLog::Stats stats = calls_.stats(call);
        std::snprintf(line, sizeof line, "%-38s %8" PRIu64 " %8" PRIu64 " %10.1f  %s\n",
                      call_name(call), stats.calls, stats.ok, ms_of(stats.longest),
                      statuses(stats.failed).c_str());
        out << line;
        for (const std::string &failure : stats.first_failures)
            out << "    e.g. " << failure.substr(0, 200) << "\n";
    }
    for (const std::string &note : logs_.notable()) out << "log: " << note.substr(0, 240) << "\n";
    std::printf("%s\n", out.str().c_str());
    std::fflush(stdout);

    const auto first = [](const std::vector<std::uint64_t> &numbers) {
        std::string text;
        for (std::size_t i = 0; i < numbers.size() && i < 10; ++i)
            text += std::to_string(numbers[i]) + " ";
        return text;
    };
    EXPECT_EQ(resets_done_, resets)
        << "the run did not get through its faults in time " << fault_error_;
    EXPECT_EQ(closes_per_window_.size(), static_cast<std::size_t>(timeout_holds));
    EXPECT_GE(logged.timeout_closes, static_cast<std::uint64_t>(timeout_holds))
        << "the broker closed too few channels for their consumer timeout";
    // No channel closed for anything the test did not cause: an unknown delivery tag was a
    // settle that named another channel's delivery (deliveries of a closed channel taken
    // for those of the channel opened next with its number), whose ack(multiple) also
    // acked jobs that never ran.
    EXPECT_EQ(logged.other_closes, 0u) << "see the log lines above";
    EXPECT_TRUE(all_ended_) << "not every job enqueued OK ended before the deadline";
    EXPECT_TRUE(quiet_) << "the queue or its hold queue never emptied";
    std::string lost_detail;
    for (std::size_t i = 0; i < lost.size() && i < 10; ++i) {
        const JobRecord &job = records[lost[i]];
        lost_detail += "\n  n=" + std::to_string(lost[i]) + ": runs " + std::to_string(job.runs) +
                       ", given back " + std::to_string(job.given_back) + ", ends " +
                       std::to_string(job.ends);
    }
    EXPECT_EQ(lost.size(), 0u) << "lost jobs (enqueued OK, never ended):" << lost_detail;
    EXPECT_EQ(wrong_outcome.size(), 0u) << "ended otherwise than planned: " << first(wrong_outcome);
    EXPECT_EQ(not_enqueued_but_ended.size(), 0u) << first(not_enqueued_but_ended);
    EXPECT_EQ(t.foreign_runs, 0u);
    EXPECT_EQ(in_dead, ended_dead) << "q.dead holds other jobs than those dead-lettered";
    EXPECT_TRUE(bad_dead_letters.empty()) << bad_dead_letters.front();
    EXPECT_TRUE(left_not_ended.empty())
        << "jobs left in q that never ended: " << first(left_not_ended);
    EXPECT_EQ(left_held_, 0u);
    // Failed enqueues: those in flight when a connection went, at most one per producer.
    EXPECT_LE(t.enqueue_failed, static_cast<std::uint64_t>(producers) * (resets + 1));
    // Duplicates: at most what the consumers held (prefetch and unsent acks) and what
    // they were settling, per fault.
    const std::uint64_t faults = resets + logged.timeout_closes + 1;
    EXPECT_LE(t.runs_after_end, faults * consumers * (2 * prefetch + 2));
    // Every call within its bound: the publish timeout (settles, enqueues, subscribes),
    // plus the wait it was given.
    for (int c = 0; c < static_cast<int>(Call::count_); ++c) {
        const Call call = static_cast<Call>(c);
        auto bound = std::chrono::milliseconds(publish_timeout_ms) + 5s;
        if (call == Call::consumer_next) bound += std::chrono::milliseconds(next_timeout_ms);
        EXPECT_LE(calls_.stats(call).longest, bound) << call_name(call);
    }
}

TEST_F(Stress, EveryJobIsCountedThroughResetsConsumerChurnAndChannelCloses) {
    const char *server = std::getenv("QUEUEY_TOXIPROXY_SERVER");
    ASSERT_TRUE(server != nullptr && *server != '\0')
        << "QUEUEY_TOXIPROXY_SERVER is not set: run the test with meson test, or set it to "
           "Toxiproxy's server (bash -c 'source scripts/lib/deps.sh && queuey_toxiproxy_server')";
    const std::uint64_t per_producer = env_number("QUEUEY_STRESS_JOBS", 500);
    const auto budget = std::chrono::seconds(env_number("QUEUEY_STRESS_DEADLINE_S", 300));
    StressRun run(*broker_, version_, server, per_producer, budget);
    run.go();
    run.report_and_check();
}

}  // namespace
}  // namespace queuey_stress
