#include "rabbit_connection.hpp"

#include "../hold_index.hpp"
#include "amqp_failure.hpp"
#include "consumer_timeout.hpp"

#include <algorithm>
#include <future>
#include <random>
#include <utility>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace queuey {

namespace {

constexpr amqp_channel_t declare_channel = 1;
constexpr amqp_channel_t publish_channel = 2;
constexpr amqp_channel_t first_consumer_channel = 3;
// Frames handled per turn of the loop before queued commands (acks) get their turn.
constexpr int frames_per_turn = 256;
// rabbitmq-c keeps every frame of a turn in memory of its own until released: past this
// many body bytes the frames (already copied out) are released mid-turn, so that big
// bodies' frames reuse memory still in the cache instead of megabytes of cold memory.
constexpr std::size_t pooled_body_most = 256 * 1024;
std::string text_of(amqp_bytes_t bytes) {
    return {static_cast<const char *>(bytes.bytes), bytes.len};
}

}  // namespace

RabbitConnection::RabbitConnection(ConnectionOptions options)
    : options_(std::move(options)), max_message_size_(options_.max_message_size) {
    if (options_.urls.empty()) throw Error(QY_ERR_INVALID_ARGUMENT, "url", "no broker URL given");
    wakeup_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wakeup_fd_ < 0) throw Error(QY_ERR_INTERNAL, "", "cannot create an eventfd");
    session_hold_.take();  // this thread's until the I/O thread starts
    try {
        connect();  // the client's other connection declared what there is
    } catch (...) {
        session_.reset();
        session_hold_.give();
        ::close(wakeup_fd_);
        throw;
    }
    session_hold_.give();
    io_thread_ = std::thread([this] { run(); });
}

RabbitConnection::~RabbitConnection() {
    close();
    ::close(wakeup_fd_);
}

void RabbitConnection::close() {
    closing_ = true;
    wake_io_thread();
    std::call_once(joined_, [this] {
        if (io_thread_.joinable()) io_thread_.join();
    });
}

void RabbitConnection::post(Command command) {
    bool wake;
    {
        MutexLock lock(lending_.mutex());
        if (failed_) {
            const Error failure = *failed_;
            lock.unlock();
            fail_command(command, failure);
            return;
        }
        commands_.push_back(std::move(command));
        wake = lending_.posted();
    }
    if (wake) wake_io_thread();
}

void RabbitConnection::wake_io_thread() {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto written = ::write(wakeup_fd_, &one, sizeof one);
}

template <typename Result>
Result RabbitConnection::call(std::function<Result(AmqpSession &)> body, Clock::time_point deadline,
                              const std::string &what) {
    auto promise = std::make_shared<std::promise<Result>>();
    auto future = promise->get_future();
    auto claim = std::make_shared<CommandClaim>();
    auto fail = [promise](const Error &error) {
        promise->set_exception(std::make_exception_ptr(error.unshared()));
    };
    auto run = [promise, body, claim](AmqpSession &session) {
        if (!claim->start()) return;  // its caller gave up: never done later
        try {
            if constexpr (std::is_void_v<Result>) {
                body(session);
                promise->set_value();
            } else {
                promise->set_value(body(session));
            }
        } catch (const ConnectionLost &) {
            promise->set_exception(copy_of_current_exception());
            throw;  // the I/O thread reconnects
        } catch (...) {
            promise->set_exception(copy_of_current_exception());
        }
    };
    post(FunctionCommand{std::move(run), std::move(fail)});
    if (future.wait_until(deadline) != std::future_status::ready) {
        if (claim->abandon())
            throw Error(QY_ERR_TIMEOUT, "",
                        what +
                            ": not done in time (the connection was down or busy); it will not be "
                            "done later");
        future.wait();  // under way on the I/O thread, whose RPC timeout bounds it
    }
    return get_unshared(future);
}

void RabbitConnection::start_declare(const QueueSpec &spec, PendingDeclares::Done done) {
    declares_.sent(spec, std::move(done));  // first: if sending fails, the loss fails it
    session_->send_declare(declare_channel, spec);
}

void RabbitConnection::declare(const QueueSpec &spec, bool remember, Clock::time_point deadline) {
    auto promise = std::make_shared<std::promise<void>>();
    auto future = promise->get_future();
    auto claim = std::make_shared<CommandClaim>();
    auto fail = [promise](const Error &error) {
        promise->set_exception(std::make_exception_ptr(error.unshared()));
    };
    post(FunctionCommand{[this, spec, remember, promise, claim, fail](AmqpSession &) QY_REQUIRES(
                             io_thread_role_, session_hold_) {
                             if (!claim->start()) return;  // its caller gave up: never sent later
                             start_declare(spec,
                                           [this, spec, remember, promise, fail](
                                               PendingDeclares::Result, const Error *failure) {
                                               if (failure) return fail(*failure);
                                               if (remember) options_.remembered->add(spec);
                                               promise->set_value();
                                           });
                         },
                         fail});
    const std::string what = "declaring queue '" + spec.name + "'";
    if (future.wait_until(deadline) == std::future_status::ready) return get_unshared(future);
    if (claim->abandon())
        throw Error(QY_ERR_TIMEOUT, "",
                    what +
                        ": not sent in time (the connection was down or busy); it will not be "
                        "sent later");
    throw Error(QY_ERR_TIMEOUT, "",
                what +
                    ": the broker did not answer in time (it may be blocked by an alarm, or "
                    "slow); the queue may or may not be declared");
}

void RabbitConnection::publish(std::shared_ptr<PublishBatch> batch, bool caller_waits) {
    // Whoever writes the batch declares its holds first unless they are all fresh then
    // (run_publish).
    if (!publish_while_io_sleeps(batch, caller_waits)) post(PublishCommand{std::move(batch)});
}

void RabbitConnection::declare_then_publish(const std::shared_ptr<PublishBatch> &batch,
                                            const HoldSpecs &declare_first) {
    // Publishes sent before the declare-ok could reach the broker first, on their own
    // channel, and come back unroutable. Once the declares are answered they queue as a
    // command: a broker that blocked publishing meanwhile gets none.
    auto left = std::make_shared<std::size_t>(declare_first.size());
    auto failed = std::make_shared<bool>(false);
    const auto sent_at = Clock::now();  // the lease starts no earlier
    for (const std::shared_ptr<const QueueSpec> &spec : declare_first)
        start_declare(*spec, [this, left, failed, batch, spec, sent_at](
                                 PendingDeclares::Result result, const Error *failure) {
            if (!failure) hold_leases_.renewed(*spec, sent_at);
            if (*failed) return;
            if (failure) {
                *failed = true;  // nothing is published
                if (result == PendingDeclares::Result::lost)
                    batch->unsent_from(0, *failure);
                else
                    batch->fail_from(0, *failure);
                return;
            }
            if (--*left == 0) post(PublishCommand{batch});
        });
    index_holds(declare_first, sent_at);
}

void RabbitConnection::index_holds(const HoldSpecs &holds, Clock::time_point now) {
    // Behind the holds' declares on their channel: an index the broker refused (declared
    // by hand with other arguments) closes the channel after they were answered. Nobody
    // waits for it; stats then counts the holds it finds by name.
    std::string declared;  // the index declared by this call
    for (const std::shared_ptr<const QueueSpec> &hold : holds) {
        const std::optional<QueueSpec> index = hold_index_spec(*hold);
        const HoldIndexTimes times = hold_index_times(*hold);
        if (!index || !hold_index_entries_.take_due(hold->name, times.refresh, now)) continue;
        if (declared != index->name) {
            start_declare(*index, [](PendingDeclares::Result, const Error *) {});
            declared = index->name;
        }
        session_->publish_expiring(declare_channel, index->name, hold->name, times.lifetime);
    }
}

void RabbitConnection::run_publish(const std::shared_ptr<PublishBatch> &batch) {
    // Checked when written, not when called: a batch held back (a reconnect, a blocked
    // broker) past its holds' window declares them. With one to declare, all are: one
    // round trip either way.
    if (batch->holds.empty()) return write_publishes(batch);
    const auto now = Clock::now();
    if (std::all_of(batch->holds.begin(), batch->holds.end(),
                    [&](const auto &spec) { return hold_leases_.fresh(*spec, now); }))
        return write_publishes(batch);
    declare_then_publish(batch, std::exchange(batch->holds, {}));
}

void RabbitConnection::write_publishes(const std::shared_ptr<PublishBatch> &shared) {
    PublishBatch &batch = *shared;
    // The caller's claim is taken when the publishes are about to be written: a caller
    // that gave up before then reported them unsent, and they never go.
    if (!batch.claim.start()) return;
    const std::shared_ptr<PublishWaiter> waiter = PublishBatch::waiter_of(shared);
    // A caller holding the session waits for room in the socket until its deadline at
    // most; what is left then goes with the I/O thread (AmqpSession::flush_publishes).
    const Clock::time_point waits_until = lent_ ? batch.deadline : AmqpSession::no_limit;
    for (std::size_t i = 0; i < batch.messages.size(); ++i) {
        if (session_->output_left() || Clock::now() > batch.deadline) {
            batch.waiter.complete(i, {QY_ERR_NOT_SENT,
                                      "not sent: the publish timeout passed before it "
                                      "could be written (the job is not in the queue)"});
            continue;
        }
        const OutgoingMessage &message = batch.messages[i];
        if (message.body_size() > max_message_size_) {
            batch.waiter.complete(i, {QY_ERR_INVALID_ARGUMENT,
                                      over_size_limit(message.body_size(), max_message_size_)});
            continue;
        }
        try {
            session_->publish(publish_channel, message.queue, message.properties,
                              message.body_parts(), waits_until);
        } catch (const Error &error) {
            batch.fail_from(i, error);  // maybe partly written: its outcome is unknown
            batch.unsent_from(i + 1, error);
            throw;
        }
        tracker_.published(message.properties.message_id, waiter, i, message.queue,
                           message.body_size());
    }
    // A failure here is a lost connection: the tracker fails them.
    session_->flush_publishes(waits_until);
}

bool RabbitConnection::borrow_session(Borrower borrower, Lend &lend) {
    MutexLock lock(lending_.mutex());
    // With anything queued the I/O thread goes first: earlier calls' publishes and
    // settles keep their order.
    if (!commands_.empty() || failed_ || blocked_ || closing_) return false;
    lend = lending_.lend(borrower);
    if (lend == Lend::refused) return false;
    session_hold_.take();
    lent_ = true;
    return true;
}

bool RabbitConnection::publish_while_io_sleeps(const std::shared_ptr<PublishBatch> &batch,
                                               bool caller_waits) {
    Lend lend;
    if (!borrow_session(Borrower::publish, lend)) return false;
    const bool reads = lend == Lend::to_read;  // the I/O thread left the socket to callers
    const bool reads_confirms = reads && caller_waits;
    std::exception_ptr failure;
    bool written = false;
    try {
        if (reads && session_->input_waiting()) {
            // What came while nobody read (a close, a block) is handled before writing.
            socket_readable_ = true;
            read_frames();
        }
        // The I/O thread may wait on the broker (a full socket, a broker gone silent)
        // while its caller returns at the deadline; a caller writing itself could not.
        written = !blocked_ && channels_to_reopen_.empty() &&
                  session_->writes_at_once(bytes_to_write(*batch));
        if (written) run_publish(batch);  // as the I/O thread runs it
        if (written && reads_confirms)
            read_while_lent(batch->deadline, [&] { return batch->waiter.finished(); });
    } catch (...) {
        failure = std::current_exception();
    }
    const bool confirmed = written && reads_confirms && batch->waiter.finished();
    give_session_back(std::move(failure), lend, [&]() QY_REQUIRES(lending_.mutex()) {
        if (!written) return;
        ++counters_.written_by_caller;
        if (confirmed) ++counters_.confirmed_by_caller;
        lending_.callers_published(Clock::now());
    });
    return written;
}

bool RabbitConnection::settle_while_io_sleeps(const SettleCommand &settle, bool alone) {
    Lend lend;
    if (!borrow_session(alone ? Borrower::settle_alone : Borrower::settle_in_a_run, lend))
        return false;
    constexpr std::size_t settle_bytes = 64;  // a basic.ack or basic.reject frame
    std::exception_ptr failure;
    bool written = false;
    try {
        written = session_->writes_at_once(settle_bytes);
        if (written) {
            run_settle(settle);  // as the I/O thread runs it
            // An ack in a run waits for the run's last settle, the consumer's next read or
            // the I/O thread's next turn (20 ms at most), which send the run's acks as one
            // ack(multiple): an ack written per job cost as much as the rest of its settle.
            if (alone) send_acks();
        }
    } catch (...) {
        failure = std::current_exception();
    }
    give_session_back(std::move(failure), lend, [&]() QY_REQUIRES(lending_.mutex()) {
        if (written) ++counters_.settled_by_caller;
    });
    return written;
}

void RabbitConnection::read_while_lent(Clock::time_point deadline,
                                       const std::function<bool()> &done) {
    const int longest_ms = longest_sleep_ms();  // heartbeats are sent between polls
    // Output left unsent or a channel to reopen: the I/O thread's to finish.
    while (!done() && !session_->output_left() && channels_to_reopen_.empty()) {
        if (!session_->has_buffered_input()) {
            const auto left =
                std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
            // The I/O thread polls the eventfd as well: a post or close() wakes both,
            // and this caller hands the session back. Past the deadline, one look.
            pollfd fds[2] = {{session_->socket_fd(), POLLIN, 0}, {wakeup_fd_, POLLIN, 0}};
            const int wait_ms = static_cast<int>(std::clamp<long long>(left, 0, longest_ms));
            if (::poll(fds, 2, wait_ms) <= 0 || (fds[1].revents & POLLIN)) return;
            socket_readable_ = true;
            session_->input_seen();
        }
        read_frames();
    }
}

bool RabbitConnection::socket_owes_nothing() const {
    return options_.publishes && subscriptions_.empty() && borrowed_.empty() &&
           tracker_.outstanding() == 0 && declares_.empty();
}

int RabbitConnection::longest_sleep_ms() const {
    const auto heartbeat_ms = options_.session.heartbeat.count() * 1000;
    return heartbeat_ms > 0 ? static_cast<int>(std::min<long long>(heartbeat_ms / 4, 1000)) : 1000;
}

std::size_t RabbitConnection::bytes_to_write(const PublishBatch &batch) {
    // A method frame, a header frame with queuey's properties and headers, and the body;
    // generous: the estimate only decides who writes.
    constexpr std::size_t frames_per_message = 1024;
    std::size_t bytes = 0;
    for (const OutgoingMessage &message : batch.messages)
        bytes += frames_per_message + message.queue.size() + message.body_size();
    return bytes;
}

std::shared_ptr<Subscription> RabbitConnection::consume(const std::string &queue,
                                                        std::uint16_t prefetch,
                                                        std::shared_ptr<DeliveryQueue> sink,
                                                        Clock::time_point deadline) {
    auto subscription = std::make_shared<Subscription>();
    subscription->queue = queue;
    subscription->prefetch = prefetch;
    subscription->deliveries = std::move(sink);
    call<void>(
        [this, subscription](AmqpSession &) QY_REQUIRES(io_thread_role_, session_hold_) {
            subscription->channel = free_channel();
            open_subscription(*subscription);
            subscriptions_.push_back(subscription);
        },
        deadline, "consuming from queue '" + queue + "'");
    return subscription;
}

void RabbitConnection::stop_consuming(const std::shared_ptr<Subscription> &subscription,
                                      Clock::time_point deadline) {
    call<void>(
        [this, subscription](AmqpSession &session) QY_REQUIRES(io_thread_role_, session_hold_) {
            subscription->stopped = true;
            subscription->resubscribe.done();
            if (subscription->cancelled_by_broker) return;  // nothing left to cancel
            session.cancel_consumer(subscription->channel, subscription->consumer_tag);
            // Deliveries sent before the cancel-ok wait in rabbitmq-c's frame queue: hand
            // them to the sink before the caller drains it.
            read_frames();
        },
        deadline, "stopping the consumer of queue '" + subscription->queue + "'");
}

void RabbitConnection::cancel(const std::shared_ptr<Subscription> &subscription) {
    auto done = std::make_shared<std::promise<void>>();
    auto finished = done->get_future();
    post(FunctionCommand{
        [this, subscription, done](AmqpSession &session) QY_REQUIRES(io_thread_role_,
                                                                     session_hold_) {
            send_acks();  // the acks settled before the cancel go ahead of the channel.close
            hand_back(*subscription);
            std::erase(subscriptions_, subscription);
            subscription
                ->generation++;  // later settles are dropped, never sent on a closed channel
            subscription->deliveries->fail(Error(QY_ERR_CLOSED, "", "the consumer was closed"));
            // Answered before the channel.close (unlike give_back): a shutdown never waits
            // on a socket that is going away, and the worker needs nothing from the close.
            done->set_value();
            // Not open while a consumer the broker cancelled waits to consume again.
            if (subscription->channel_open) session.close_channel(subscription->channel);
        },
        [subscription, done](const Error &error) {
            subscription->deliveries->fail(error);
            done->set_value();
        }});
    finished.wait_for(std::chrono::seconds(5));
}

void RabbitConnection::count_stale_settle() {
    MutexLock lock(lending_.mutex());
    ++counters_.stale_settles;
}

bool RabbitConnection::settle(const std::shared_ptr<Subscription> &subscription,
                              const IncomingDelivery &delivery, Settlement settlement) {
    if (delivery.generation != subscription->generation.load()) {
        count_stale_settle();
        return false;
    }
    {
        MutexLock lock(lending_.mutex());
        if (failed_) throw *failed_;  // closed, or gave up reconnecting: nothing can be sent
    }
    SettleCommand command{subscription, delivery.delivery_tag, delivery.generation, settlement};
    // The I/O thread coalesces the acks of one turn into one ack(multiple), cheaper than a
    // write per settle; but a settle that no other follows within a wake-up would wake it
    // for that one alone: its caller writes it then (docs/broker.md, a caller's own
    // settle). Either the consumer has nothing left to run, or settles come far apart. One
    // in a run that its caller settles on the lend leaves its ack to the run's last.
    const auto now = Clock::now().time_since_epoch().count();
    const auto since = now - subscription->last_settled_at.exchange(now);
    const bool alone = since > Clock::duration(SessionLending::settles_coalesce_within).count() ||
                       subscription->deliveries->empty();
    if (!settle_while_io_sleeps(command, alone)) post(std::move(command));
    return true;
}

void RabbitConnection::set_aside(const std::shared_ptr<Subscription> &subscription,
                                 const IncomingDelivery &delivery) {
    post(FunctionCommand{
        [this, subscription, tag = delivery.delivery_tag, generation = delivery.generation](
            AmqpSession &session) QY_REQUIRES(io_thread_role_, session_hold_) {
            // A prefetch of 0 is no limit: nothing to make room in.
            if (generation != subscription->generation.load() || subscription->prefetch == 0 ||
                subscription->cancelled_by_broker || !subscription->settles.unsettled(tag))
                return;
            const std::size_t half_window = (subscription->prefetch + 1) / 2;
            if (++subscription->set_aside < half_window ||
                subscription->settles.unsettled_count() >=
                    max_set_aside_windows * subscription->prefetch)
                return;
            // Deliveries to the old consumer before its cancel-ok are read after it, on
            // the same channel: nothing is lost or redelivered.
            session.cancel_consumer(subscription->channel, subscription->consumer_tag);
            start_consumer(*subscription);
        },
        [](const Error &) {}});
}

QueueCounts RabbitConnection::inspect(const std::string &queue, Clock::time_point deadline) {
    return call<QueueCounts>(
        [this, queue](AmqpSession &session) QY_REQUIRES(io_thread_role_, session_hold_) {
            // A channel of its own: a missing queue's 404 closes it, and nothing else.
            const amqp_channel_t channel = free_channel();
            session.open_channel(channel);
            const QueueCounts counts = session.inspect_queue(channel, queue);
            session.close_channel(channel);
            return counts;
        },
        deadline, "looking at queue '" + queue + "'");
}

std::shared_ptr<BorrowedChannel> RabbitConnection::borrow_channel(const std::string &queue,
                                                                  Clock::time_point deadline) {
    auto borrowed = std::make_shared<BorrowedChannel>();
    borrowed->queue = queue;
    call<void>(
        [this, borrowed](AmqpSession &session) QY_REQUIRES(io_thread_role_, session_hold_) {
            borrowed->channel = free_channel();
            session.open_channel(borrowed->channel);
            borrowed->open = true;
            borrowed_.push_back(borrowed);
        },
        deadline, "opening a channel to browse queue '" + queue + "'");
    return borrowed;
}

template <typename Result>
Result RabbitConnection::on_borrowed(const std::shared_ptr<BorrowedChannel> &borrowed,
                                     std::function<Result(AmqpSession &)> body,
                                     Clock::time_point deadline, const std::string &what) {
    return call<Result>(
        [this, borrowed, body](AmqpSession &session) QY_REQUIRES(io_thread_role_, session_hold_) {
            if (!borrowed->open)
                throw Error(QY_ERR_CONNECTION, "",
                            "the channel browsing queue '" + borrowed->queue + "' was lost (" +
                                last_error_ + "); the messages it had taken are back in the queue");
            try {
                return body(session);
            } catch (const ChannelClosed &) {
                borrowed->open = false;  // the session answered the broker's close
                std::erase(borrowed_, borrowed);
                throw;
            }
        },
        deadline, what);
}

std::optional<BrowsedMessage> RabbitConnection::get(
    const std::shared_ptr<BorrowedChannel> &borrowed, Clock::time_point deadline) {
    return on_borrowed<std::optional<BrowsedMessage>>(
        borrowed,
        [borrowed](AmqpSession &session) {
            return session.get(borrowed->channel, borrowed->queue);
        },
        deadline, "taking a message from queue '" + borrowed->queue + "'");
}

void RabbitConnection::ack(const std::shared_ptr<BorrowedChannel> &borrowed, std::uint64_t tag,
                           Clock::time_point deadline) {
    on_borrowed<void>(
        borrowed, [borrowed, tag](AmqpSession &session) { session.ack(borrowed->channel, tag); },
        deadline, "removing a message from queue '" + borrowed->queue + "'");
}

void RabbitConnection::give_back(const std::shared_ptr<BorrowedChannel> &borrowed) {
    auto done = std::make_shared<std::promise<void>>();
    auto finished = done->get_future();
    post(FunctionCommand{[this, borrowed, done](AmqpSession &session)
                             QY_REQUIRES(io_thread_role_, session_hold_) {
                                 std::erase(borrowed_, borrowed);
                                 // Answered once the channel is closed. RabbitMQ 3.10 has then put
                                 // back what the channel held; 4 may do so a moment later (its
                                 // queue can learn of the closed channel after the close-ok): a
                                 // nack of all first makes that moment shorter, as a count taken
                                 // next shows
                                 // (QueueToolsOnRabbitMQ.EveryMessageIsCountedAgainSoonAfterABrowse).
                                 try {
                                     if (std::exchange(borrowed->open, false)) {
                                         session.requeue_unacknowledged(borrowed->channel);
                                         session.close_channel(borrowed->channel);
                                     }
                                 } catch (...) {
                                     done->set_value();
                                     throw;
                                 }
                                 done->set_value();
                             },
                         [done](const Error &) { done->set_value(); }});
    finished.wait_for(std::chrono::seconds(5));
}

void RabbitConnection::flush_acks(Clock::time_point deadline) {
    call<void>([this](AmqpSession &) QY_REQUIRES(io_thread_role_, session_hold_) { send_acks(); },
               deadline, "sending acknowledgements");
}

ConnectionCounters RabbitConnection::counters() const {
    MutexLock lock(lending_.mutex());
    return counters_;
}

// ---- the I/O thread -------------------------------------------------------------------

void RabbitConnection::run() {
    io_thread_role_.enter();
    session_hold_.take();  // the constructor's until now; this thread's from here, or lent by it
    while (!closing_) {
        if (!session_) {
            if (!reconnect()) break;
            continue;
        }
        try {
            try {
                finish_what_callers_left();
                run_commands();
                resubscribe_due();
                read_frames();
                wait_for_input();
            } catch (const ChannelClosed &closed) {
                on_channel_closed(closed.channel(), closed.status(), closed.what());
            }
        } catch (const Error &error) {
            on_connection_lost(error);
        } catch (const std::exception &error) {
            on_connection_lost(Error(QY_ERR_INTERNAL, "", error.what()));
        }
    }
    if (session_) send_settles_before_close();
    bool already_failed;
    {
        MutexLock lock(lending_.mutex());
        already_failed = failed_.has_value();
    }
    if (!already_failed) fail_everything(Error(QY_ERR_CLOSED, "", "the connection was closed"));
    session_.reset();
    session_hold_.give();
    io_thread_role_.leave();
}

void RabbitConnection::send_settles_before_close() {
    // A settle its caller was told went through (queued as a command, or an ack kept for
    // the run's ack(multiple)) goes out before the connection closes: the broker would
    // take the job back and run it again. Publishes and other commands are not started
    // now; fail_everything reports them unsent.
    std::vector<Command> settles;
    {
        MutexLock lock(lending_.mutex());
        for (Command &command : commands_)
            if (std::holds_alternative<SettleCommand>(command)) settles.push_back(std::move(command));
        std::erase_if(commands_, [](const Command &command) {
            return std::holds_alternative<SettleCommand>(command);
        });
    }
    try {
        for (Command &settle : settles) run_command(settle);
        send_acks();
    } catch (const std::exception &error) {
        options_.logger.warn(std::string("settles not sent at close: ") + error.what());
    }
}

void RabbitConnection::run_commands() {
    if (blocked_) return;  // the broker stopped reading; publishes wait within their deadline
    {
        MutexLock lock(lending_.mutex());
        running_.swap(commands_);  // both keep their capacity: no allocation per turn
    }
    for (auto it = running_.begin(); it != running_.end(); ++it) {
        try {
            run_command(*it);
        } catch (...) {
            // The rest run after the reconnect, ahead of anything posted since.
            MutexLock lock(lending_.mutex());
            commands_.insert(commands_.begin(), std::make_move_iterator(std::next(it)),
                             std::make_move_iterator(running_.end()));
            running_.clear();
            throw;
        }
    }
    running_.clear();
    send_acks();
}

void RabbitConnection::run_command(Command &command) {
    if (auto *settle = std::get_if<SettleCommand>(&command)) return run_settle(*settle);
    if (auto *publish = std::get_if<PublishCommand>(&command)) return run_publish(publish->batch);
    std::get<FunctionCommand>(command).run(*session_);
}

void RabbitConnection::fail_command(Command &command, const Error &error) {
    if (auto *publish = std::get_if<PublishCommand>(&command))
        return publish->batch->unsent_from(0, error);
    if (auto *function = std::get_if<FunctionCommand>(&command)) function->fail(error);
    // A settle that cannot be sent is nothing to report: the broker redelivers the job.
}

void RabbitConnection::run_settle(const SettleCommand &settle) {
    Subscription &subscription = *settle.subscription;
    // The channel may have been replaced after settle() checked.
    if (settle.generation != subscription.generation.load()) return count_stale_settle();
    // An ack is sent by send_acks() at the end of the turn.
    const bool ack = settle.settlement == Settlement::ack;
    if (subscription.settles.settle(settle.tag, ack) && !ack)
        session_->reject(subscription.channel, settle.tag,
                         settle.settlement == Settlement::reject_requeue);
}

void RabbitConnection::send_acks() {
    // Each ack is kept until sent: a connection lost meanwhile hands its job back.
    AmqpSession &session = *session_;
    for (const auto &subscription : subscriptions_)
        subscription->settles.send_acks([&](std::uint64_t tag, bool multiple) {
            session.ack(subscription->channel, tag, multiple);
        });
}

void RabbitConnection::read_frames() {
    struct WakeAtEnd {  // also when a read throws: nobody is left handed and asleep
        RabbitConnection &connection;
        ~WakeAtEnd() { connection.wake_handed(); }
    } wake_at_end{*this};
    // rabbitmq-c reads the socket only when its buffer runs dry, and a read that finds
    // nothing costs a recv and a poll: read what is buffered, or what poll saw.
    amqp_frame_t frame;
    std::size_t pooled_body_bytes = 0;
    turn_read_at_.reset();
    for (int i = 0; i < frames_per_turn; ++i) {
        if (!session_->has_buffered_input() && !std::exchange(socket_readable_, false)) break;
        if (!session_->next_frame(frame)) break;
        dispatch(frame);
        if (frame.frame_type != AMQP_FRAME_BODY) continue;
        pooled_body_bytes += frame.payload.body_fragment.len;
        if (pooled_body_bytes >= pooled_body_most) {
            session_->release_buffers();
            pooled_body_bytes = 0;
        }
    }
    session_->release_buffers();
}

void RabbitConnection::read_queued_frames() {
    amqp_frame_t frame;
    while (session_->next_queued_frame(frame)) dispatch(frame);
}

void RabbitConnection::wake_handed() {
    for (const auto &sink : handed_to_) sink->wake_handed();
    handed_to_.clear();
}

void RabbitConnection::dispatch(const amqp_frame_t &frame) {
    if (frame.frame_type == AMQP_FRAME_HEADER || frame.frame_type == AMQP_FRAME_BODY) {
        if (auto content = arriving_.content(frame)) {
            if (content->channel < first_consumer_channel)
                on_returned(content->message_id);
            else
                hand_over(std::move(*content));
        }
        return;
    }
    if (frame.frame_type != AMQP_FRAME_METHOD) return;
    const amqp_channel_t channel = frame.channel;
    void *decoded = frame.payload.method.decoded;
    switch (frame.payload.method.id) {
        case AMQP_BASIC_ACK_METHOD: {
            const auto *ack = static_cast<amqp_basic_ack_t *>(decoded);
            if (channel == publish_channel) tracker_.acked(ack->delivery_tag, ack->multiple);
            return;
        }
        case AMQP_BASIC_NACK_METHOD: {
            const auto *nack = static_cast<amqp_basic_nack_t *>(decoded);
            if (channel == publish_channel) tracker_.nacked(nack->delivery_tag, nack->multiple);
            return;
        }
        case AMQP_BASIC_RETURN_METHOD: {
            // Its content is read frame by frame, as a delivery's: a caller reading its
            // confirms never waits in the middle of a message (on_returned).
            const auto *returned = static_cast<amqp_basic_return_t *>(decoded);
            arriving_.returned(channel);
            if (channel == publish_channel)
                returning_ = Returning{returned->reply_code, text_of(returned->reply_text),
                                       text_of(returned->routing_key)};
            return;
        }
        case AMQP_QUEUE_DECLARE_OK_METHOD:
            if (channel == declare_channel) declares_.answered();
            return;
        case AMQP_BASIC_DELIVER_METHOD: {
            const auto *deliver = static_cast<amqp_basic_deliver_t *>(decoded);
            IncomingDelivery delivery;
            delivery.channel = channel;
            delivery.delivery_tag = deliver->delivery_tag;
            delivery.redelivered = deliver->redelivered != 0;
            arriving_.delivered(std::move(delivery));  // handed over once its content is in
            return;
        }
        case AMQP_BASIC_CANCEL_METHOD: {
            const auto *cancel = static_cast<amqp_basic_cancel_t *>(decoded);
            for (const auto &subscription : subscriptions_) {
                // A consumer replaced on its channel (set_aside) is no longer the one.
                if (subscription->channel != channel ||
                    subscription->consumer_tag != text_of(cancel->consumer_tag))
                    continue;
                subscription->cancelled_by_broker = true;
                if (subscription->stopped) continue;
                subscription->resubscribe.cancelled(Clock::now());
                warn_resubscribing(*subscription,
                                   "the broker cancelled the consumer of queue '" +
                                       subscription->queue +
                                       "' (was the queue deleted, or is its node down?)");
            }
            return;
        }
        case AMQP_CHANNEL_CLOSE_METHOD: {
            const auto *close = static_cast<amqp_channel_close_t *>(decoded);
            const std::string text = reply_text(close->reply_code, close->reply_text);
            const qy_status status = status_for_reply_code(close->reply_code);
            session_->confirm_channel_closed(channel);
            on_channel_closed(channel, status, text);
            return;
        }
        case AMQP_CONNECTION_CLOSE_METHOD: {
            const auto *close = static_cast<amqp_connection_close_t *>(decoded);
            session_->confirm_connection_closed();
            throw ConnectionLost(QY_ERR_CONNECTION,
                                 "the broker closed the connection: " +
                                     reply_text(close->reply_code, close->reply_text));
        }
        case AMQP_CONNECTION_BLOCKED_METHOD: {
            const auto *blocked = static_cast<amqp_connection_blocked_t *>(decoded);
            blocked_.store(true);
            options_.logger.warn("the broker blocked publishing (" + text_of(blocked->reason) +
                                 "); publishes wait until it unblocks or they time out");
            return;
        }
        case AMQP_CONNECTION_UNBLOCKED_METHOD:
            blocked_.store(false);
            options_.logger.info("the broker unblocked publishing");
            return;
        default: return;
    }
}

void RabbitConnection::on_returned(const std::string &message_id) {
    if (!returning_) return;  // not the publishing channel's
    const Returning returned = std::move(*std::exchange(returning_, std::nullopt));
    hold_leases_.forget(returned.queue);  // a hold queue deleted by hand: declared next time
    tracker_.returned(message_id, returned.code, returned.text, returned.queue);
}

void RabbitConnection::hand_over(IncomingDelivery delivery) {
    for (const auto &subscription : subscriptions_) {
        if (subscription->channel != delivery.channel || !subscription->channel_open) continue;
        delivery.generation = subscription->generation.load();
        if (!turn_read_at_) turn_read_at_ = Clock::now();  // one clock read per turn
        subscription->settles.delivered(delivery.delivery_tag, delivery.message_id, *turn_read_at_);
        subscription->deliveries->push(std::move(delivery));
        if (handed_to_.empty() || handed_to_.back() != subscription->deliveries)
            handed_to_.push_back(subscription->deliveries);
        return;
    }
    // A channel being closed, or closed and not open again: the broker requeues what it
    // sent there.
    own_redeliveries_.record(delivery.message_id);
}

void RabbitConnection::wait_for_input() {
    if (session_->has_buffered_input()) return;
    // All read before the session is lendable: from then on a caller may run on the
    // session and the I/O thread's state, until take_session_back().
    const int longest_ms = ms_until_resubscribe(longest_sleep_ms());
    const auto wake_by = Clock::now() + std::chrono::milliseconds(longest_ms);
    SessionLending::Owed owed{false, blocked_, socket_owes_nothing(),
                              socket_owes_only_deliveries()};
    // The consumers that may want a nudge, noted while this thread holds subscriptions_:
    // once lendable, a consumer that borrows the session may erase from it (a
    // channel.close it reads).
    if (owed.only_deliveries) note_consumers_to_nudge();
    // The eventfd first: a sleep that leaves the socket to callers polls fds[0] alone.
    pollfd fds[2] = {{wakeup_fd_, POLLIN, 0}, {session_->socket_fd(), POLLIN, 0}};
    SessionLending::Sleep sleep;
    {
        MutexLock lock(lending_.mutex());
        owed.idle = commands_.empty() || blocked_;
        sleep = lending_.fall_asleep(owed, longest_ms, Clock::now());
    }
    const bool idle = owed.idle;
    const bool watches_socket = sleep.socket == SessionLending::Socket::watched;
    // Lent, when idle, until take_session_back(); not touched here either way.
    session_hold_.give();
    // A consumer that waits, refused while this thread was up, reads now.
    if (sleep.socket == SessionLending::Socket::left_to_consumers)
        if (const auto waiting = noted_consumer_waiting()) waiting->nudge();
    nudge_candidates_.clear();
    // With commands queued, only look whether the socket has input. A consumer reading
    // the socket left to it sees what comes there, a close too: it keeps the session.
    // A sleep that timed out goes on while a consumer reads the socket left to it, or while
    // callers kept publishing (for as long as callers_keep_ms says).
    int sleep_ms = sleep.sleep_ms;
    const auto sleeps_on = [&] {
        if (lending_.consumer_reads()) return true;
        if (sleep.socket != SessionLending::Socket::left_to_callers) return false;
        sleep_ms = lending_.callers_keep_ms(wake_by, Clock::now());
        return sleep_ms > 0;
    };
    int ready;
    do {
        ready = ::poll(fds, watches_socket ? 2 : 1, idle ? sleep_ms : 0);
    } while (ready == 0 && idle && !watches_socket && sleeps_on());
    std::exception_ptr failed_under_caller;
    if (idle)
        failed_under_caller = take_session_back();
    else
        session_hold_.take();  // never lent: callers are refused while commands wait
    // After a timeout rabbitmq-c runs anyway: it sends heartbeats only inside its calls.
    // Unwatched, the socket may hold what came after the callers' last read.
    socket_readable_ = !watches_socket || fds[1].revents != 0 || (idle && ready == 0);
    if (watches_socket && fds[1].revents != 0) session_->input_seen();
    if (fds[0].revents & POLLIN) {
        std::uint64_t count;
        [[maybe_unused]] auto read = ::read(wakeup_fd_, &count, sizeof count);
    }
    // As if the I/O thread had written the publish: run() reconnects, or reopens.
    if (failed_under_caller) std::rethrow_exception(failed_under_caller);
}

std::exception_ptr RabbitConnection::take_session_back() {
    MutexLock lock(lending_.mutex());
    // From here on no caller borrows the session. A caller reading its confirms or
    // deliveries polls the eventfd too: this makes it hand the session back now (the
    // count wakes the next poll, which reads it).
    const Lend lent = lending_.recall();
    if (lent == Lend::to_read || lent == Lend::to_consume) wake_io_thread();
    if (lent == Lend::to_read) ++counters_.readers_interrupted;
    std::exception_ptr failure = lending_.wait_given_back(lock);
    session_hold_.take();
    return failure;
}

void RabbitConnection::on_channel_closed(amqp_channel_t channel, qy_status status,
                                         const std::string &text) {
    options_.logger.warn("the broker closed channel " + std::to_string(channel) + ": " + text);
    arriving_.forget(channel);
    if (channel == publish_channel) {
        // One publish's fault is never reported as the others' status.
        if (const auto violation = message_size_violation(text)) {
            max_message_size_ = std::min(max_message_size_, violation->limit);
            tracker_.closed_over(
                violation->size,
                {QY_ERR_INVALID_ARGUMENT,
                 "the broker refused the job's body of " + std::to_string(violation->size) +
                     " bytes, over its max message size of " + std::to_string(violation->limit) +
                     " bytes (" + text + ")"},
                text);
        } else {
            tracker_.fail_all(QY_ERR_CONNECTION,
                              "the broker closed the publishing channel before confirming this "
                              "publish (" +
                                  text + "); the job may or may not have been accepted");
        }
        tracker_.reset();
        returning_.reset();
        return reopen_or_leave(publish_channel);
    }
    if (channel == declare_channel) {
        const std::vector<QueueSpec> again = declares_.refused(status, text);
        declares_again_.insert(declares_again_.end(), again.begin(), again.end());
        return reopen_or_leave(declare_channel);
    }
    for (const auto &borrowed : borrowed_)
        if (borrowed->channel == channel) borrowed->open = false;  // what it held went back
    std::erase_if(borrowed_, [](const auto &b) { return !b->open; });
    const auto found = std::find_if(subscriptions_.begin(), subscriptions_.end(),
                                    [channel](const auto &s) { return s->channel == channel; });
    if (found == subscriptions_.end()) return;
    const std::shared_ptr<Subscription> subscription = *found;  // a copy: it may be erased
    subscription->generation++;  // what it delivered before is stale now
    const std::optional<std::chrono::milliseconds> timeout = consumer_timeout_of(text);
    hand_back(*subscription, timeout);
    if (timeout && !std::exchange(consumer_timeout_logged_, true))
        options_.logger.warn(consumer_timeout_warning(subscription->queue, text));
    if (subscription->cancelled_by_broker || subscription->stopped) {
        // Waiting to consume again: then on a channel opened anew. A stopped one is done:
        // consuming again would take jobs that a shutting-down worker only gives back.
        subscription->channel_open = false;
        if (!subscription->resubscribe.pending()) std::erase(subscriptions_, subscription);
        return;
    }
    subscription->channel_open = false;  // until reopened
    reopen_or_leave(channel);
}

void RabbitConnection::reopen_or_leave(amqp_channel_t channel) {
    // A caller holding the session makes no round trip to the broker (docs/broker.md, what
    // a caller may wait for): the I/O thread reopens the channel, first thing once the
    // caller gives the session back (lent to no one before that).
    if (!lent_) return reopen(channel);
    channels_to_reopen_.push_back(channel);
    MutexLock lock(lending_.mutex());
    ++counters_.reopened_after_a_lend;
}

void RabbitConnection::finish_what_callers_left() {
    // Bytes a caller left unsent go before anything else is written (AmqpSession).
    if (session_->output_left()) session_->flush_publishes();
    while (!channels_to_reopen_.empty()) {
        const amqp_channel_t channel = channels_to_reopen_.front();
        channels_to_reopen_.erase(channels_to_reopen_.begin());  // kept if the next one fails
        reopen(channel);
    }
}

void RabbitConnection::reopen(amqp_channel_t channel) {
    if (channel == publish_channel) {
        session_->open_channel(publish_channel);
        session_->confirm_select(publish_channel);
        return;
    }
    if (channel == declare_channel) {
        session_->open_channel(declare_channel);
        for (const QueueSpec &spec : std::exchange(declares_again_, {}))
            session_->send_declare(declare_channel, spec);
        return;
    }
    const auto found =
        std::find_if(subscriptions_.begin(), subscriptions_.end(), [&](const auto &s) {
            return s->channel == channel && !s->channel_open && !s->cancelled_by_broker &&
                   !s->stopped;
        });
    if (found == subscriptions_.end()) return;                  // cancelled or stopped meanwhile
    const std::shared_ptr<Subscription> subscription = *found;  // a copy: it may be erased
    try {
        open_subscription(*subscription);
    } catch (const ChannelClosed &error) {
        if (wait_to_consume(*subscription, error)) return;
        subscription->deliveries->fail(error);
        std::erase(subscriptions_, subscription);
    }
}

void RabbitConnection::on_connection_lost(const Error &error) {
    last_error_ = error.what();
    options_.logger.warn(std::string("connection lost: ") + error.what());
    session_.reset();
    blocked_.store(false);  // a block belongs to its connection; a new one starts unblocked
    tracker_.fail_all(
        QY_ERR_CONNECTION,
        "the connection was lost before the broker confirmed this publish; the job may "
        "or may not have been accepted (" +
            last_error_ + ")");
    tracker_.reset();
    hold_leases_.forget_all();  // a broker that restarted may have lost them
    hold_index_entries_.forget_all();
    declares_.fail_all(
        Error(QY_ERR_CONNECTION, "",
              "the connection was lost before the broker answered (" + last_error_ + ")"));
    for (const auto &borrowed : borrowed_) borrowed->open = false;
    borrowed_.clear();
    // restore() opens every channel anew, and sends again what is declared for good.
    channels_to_reopen_.clear();
    declares_again_.clear();
    returning_.reset();
    // Deliveries not yet taken become stale: the consumer discards them (the broker
    // redelivers them) and settles of taken ones are refused.
    for (const auto &subscription : subscriptions_) {
        subscription->generation++;
        hand_back(*subscription);
    }
}

bool RabbitConnection::reconnect() {
    std::mt19937_64 random(std::random_device{}());
    for (std::uint32_t attempt = 1;; ++attempt) {
        const auto wait = options_.reconnect.wait_before(attempt, random);
        if (!wait) {
            const std::string why = attempt == 1 ? "reconnecting is turned off"
                                                 : "gave up after " + std::to_string(attempt - 1) +
                                                       " reconnect attempts";
            fail_everything(
                Error(QY_ERR_CONNECTION, "",
                      "the connection to the broker was lost (" + last_error_ + "); " + why));
            return false;
        }
        const auto until = Clock::now() + *wait;
        while (!closing_ && Clock::now() < until) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
            pollfd wakeup{wakeup_fd_, POLLIN, 0};
            ::poll(&wakeup, 1, static_cast<int>(std::clamp<long long>(left.count(), 1, 1000)));
            std::uint64_t count;
            [[maybe_unused]] auto read = ::read(wakeup_fd_, &count, sizeof count);
        }
        if (closing_) return false;
        try {
            connect();
            restore();
            {
                MutexLock lock(lending_.mutex());
                ++counters_.reconnects;
            }
            options_.logger.info("reconnected to the broker after " + std::to_string(attempt) +
                                 " attempt(s)");
            return true;
        } catch (const Error &error) {
            session_.reset();
            last_error_ = error.what();
            options_.logger.warn("reconnect attempt " + std::to_string(attempt) +
                                 " failed: " + last_error_);
        }
    }
}

void RabbitConnection::connect() {
    std::string failures;
    for (std::size_t i = 0; i < options_.urls.size() && !session_; ++i) {
        try {
            session_ = std::make_unique<AmqpSession>(options_.urls[i], options_.session);
            arriving_.clear();  // the old connection's contents never come
        } catch (const Error &error) {
            if (options_.urls.size() == 1) throw;
            failures += (failures.empty() ? "" : "; ") + std::string(error.what());
        }
    }
    if (!session_)
        throw ConnectionLost(QY_ERR_CONNECTION, "cannot connect to any of the " +
                                                    std::to_string(options_.urls.size()) +
                                                    " brokers: " + failures);
    session_->open_channel(declare_channel);
    if (options_.publishes) {
        session_->open_channel(publish_channel);
        session_->confirm_select(publish_channel);
    }
}

void RabbitConnection::restore() {
    for (const auto &spec : options_.remembered->all()) {
        try {
            session_->declare_queue(declare_channel, spec);
        } catch (const ChannelClosed &error) {
            options_.logger.error(std::string("declaring again after a reconnect: ") +
                                  error.what());
            session_->open_channel(declare_channel);
        }
    }
    // A consumer the broker cancelled consumes again on its schedule, on a new channel;
    // one that stopped (itself, or waiting no more) is done.
    std::erase_if(subscriptions_, [](const auto &s) {
        const bool done = s->stopped || (s->cancelled_by_broker && !s->resubscribe.pending());
        if (done) s->channel_open = false;
        return done;
    });
    for (auto it = subscriptions_.begin(); it != subscriptions_.end();) {
        if ((*it)->cancelled_by_broker) {
            (*it)->channel_open = false;
            ++it;
            continue;
        }
        try {
            open_subscription(**it);
            ++it;
        } catch (const ChannelClosed &error) {
            if (wait_to_consume(**it, error)) {
                ++it;
                continue;
            }
            (*it)->deliveries->fail(error);
            it = subscriptions_.erase(it);
        }
    }
}

void RabbitConnection::hand_back(Subscription &subscription,
                                 std::optional<std::chrono::milliseconds> consumer_timeout) {
    const std::unordered_set<std::string> not_started =
        consumer_timeout ? subscription.deliveries->drop_waiting(subscription.channel)
                         : std::unordered_set<std::string>{};
    const auto now = Clock::now();
    subscription.settles.hand_back(
        [&](const std::string &message_id, bool unsettled, Clock::time_point arrived) {
            const bool cut = consumer_timeout && unsettled && !not_started.contains(message_id) &&
                             ran_into(*consumer_timeout, now - arrived);
            own_redeliveries_.record(
                message_id, cut ? OwnReturn::cut_by_consumer_timeout : OwnReturn::given_back);
        });
}

amqp_channel_t RabbitConnection::free_channel() const {
    const amqp_channel_t last = session_->channel_max();
    auto holds = [](std::uint32_t channel) {
        return [channel](const auto &holder) { return holder->channel == channel; };
    };
    for (std::uint32_t channel = first_consumer_channel; channel <= last; ++channel)
        if (std::none_of(subscriptions_.begin(), subscriptions_.end(), holds(channel)) &&
            std::none_of(borrowed_.begin(), borrowed_.end(), holds(channel)))
            return static_cast<amqp_channel_t>(channel);
    throw Error(QY_ERR_BROKER, "",
                "out of AMQP channels: the broker allows " + std::to_string(last) +
                    " per connection, and every one is in use (consumers, browsers)");
}

void RabbitConnection::open_subscription(Subscription &subscription) {
    // Deliveries the old channel of this number sent before its close may still wait in
    // rabbitmq-c's queue (set aside during the close's RPC, or another's): handed out now,
    // while the channel is not open, they are the broker's to requeue (hand_over). Taken
    // for the new channel's, their settles would name its tags: an ack(multiple) of jobs
    // never run, or an unknown tag that closes the channel.
    subscription.channel_open = false;
    hand_back(subscription);  // tags of the old channel, if it was not handed back yet
    read_queued_frames();
    session_->open_channel(subscription.channel);
    session_->qos(subscription.channel, subscription.prefetch);
    start_consumer(subscription);
    subscription.channel_open = true;
}

void RabbitConnection::resubscribe_due() {
    const auto now = Clock::now();
    for (const auto &subscription : subscriptions_) {
        Subscription &s = *subscription;
        if (!s.cancelled_by_broker || s.redeclaring || !s.resubscribe.due(now)) continue;
        if (!std::exchange(s.redeclared, false)) {
            const auto remembered = options_.remembered->all();
            const auto spec = std::find_if(remembered.begin(), remembered.end(),
                                           [&s](const QueueSpec &q) { return q.name == s.queue; });
            if (spec != remembered.end()) {
                // The consume waits for the answer: on another channel it could overtake
                // the declare and find no queue yet.
                s.redeclaring = true;
                start_declare(
                    *spec, [this, subscription](PendingDeclares::Result, const Error *failure) {
                        subscription->redeclaring = false;
                        subscription->redeclared = true;
                        if (failure)
                            options_.logger.warn("declaring queue '" + subscription->queue +
                                                 "' again to consume from it: " + failure->what());
                    });
                continue;
            }
        }
        try {
            if (s.channel_open)
                start_consumer(s);
            else
                open_subscription(s);
        } catch (const ChannelClosed &error) {
            if (error.channel() != s.channel) throw;  // another channel's; tried again next turn
            // Still no queue to consume: the broker closed the channel.
            s.channel_open = false;
            s.generation++;
            hand_back(s);
            s.resubscribe.refused(now);
            warn_resubscribing(s, "consuming from queue '" + s.queue + "' again: " + error.what());
            continue;
        }
        s.cancelled_by_broker = false;
        s.channel_open = true;
        s.resubscribe.done();
        options_.logger.info("consuming from queue '" + s.queue + "' again");
    }
}

bool RabbitConnection::wait_to_consume(Subscription &subscription, const ChannelClosed &refused) {
    if (subscription.stopped || refused.channel() != subscription.channel) return false;
    subscription.cancelled_by_broker = true;
    subscription.channel_open = false;
    subscription.resubscribe.cancelled(Clock::now());
    warn_resubscribing(subscription,
                       "cannot consume from queue '" + subscription.queue +
                           "' (was it deleted, or is its node down?): " + refused.what());
    return true;
}

int RabbitConnection::ms_until_resubscribe(int cap_ms) const {
    const auto now = Clock::now();
    int ms = cap_ms;
    for (const auto &subscription : subscriptions_) {
        const auto due = subscription->resubscribe.due_at();
        if (!subscription->cancelled_by_broker || subscription->redeclaring || !due) continue;
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(*due - now).count();
        ms = static_cast<int>(std::clamp<long long>(left, 0, ms));
    }
    return ms;
}

void RabbitConnection::warn_resubscribing(const Subscription &subscription,
                                          const std::string &why) {
    options_.logger.warn(why + "; consuming again in " +
                         std::to_string(subscription.resubscribe.wait().count()) + " ms");
}

void RabbitConnection::start_consumer(Subscription &subscription) {
    // The first consumer of channel 3 is queuey.3, the ones that replace it queuey.3.2, ...
    const std::uint64_t number = ++subscription.consumers_started;
    subscription.consumer_tag = "queuey." + std::to_string(subscription.channel) +
                                (number == 1 ? "" : "." + std::to_string(number));
    subscription.set_aside = 0;
    session_->consume(subscription.channel, subscription.queue, subscription.consumer_tag);
}

void RabbitConnection::fail_everything(const Error &error) {
    std::vector<Command> abandoned;
    {
        MutexLock lock(lending_.mutex());
        failed_.emplace(error);
        abandoned.swap(commands_);
    }
    for (auto &command : abandoned) fail_command(command, error);
    tracker_.fail_all(error.status(), error.what());
    declares_.fail_all(error);
    for (const auto &subscription : subscriptions_) subscription->deliveries->fail(error);
}

}  // namespace queuey
