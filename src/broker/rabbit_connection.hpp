// One broker connection and the I/O thread that owns it (docs/broker.md).
//
// rabbitmq-c is single-threaded and services heartbeats only inside its own calls, so
// exactly one thread touches the connection: it takes commands (publish, declare,
// consume, settle) from a queue, writes them, and reads frames: publisher confirms and
// returns, deliveries, channel and connection closes. Callers on any thread post
// commands and wait on their own completions. After a lost connection the thread
// reconnects by the policy, declares again what was declared, subscribes again, and
// bumps each subscription's generation so that no delivery tag of the old connection
// is ever settled on the new one.
#pragma once

#include "../amqp_properties.hpp"
#include "../backend.hpp"
#include "../log.hpp"
#include "../mutex.hpp"
#include "../topology.hpp"
#include "amqp_failure.hpp"
#include "amqp_session.hpp"
#include "amqp_url.hpp"
#include "arriving_contents.hpp"
#include "channel_settles.hpp"
#include "command_claim.hpp"
#include "confirm_tracker.hpp"
#include "delivery_queue.hpp"
#include "hold_index_entries.hpp"
#include "hold_leases.hpp"
#include "message_size_limit.hpp"
#include "own_redeliveries.hpp"
#include "pending_declares.hpp"
#include "pending_requeues.hpp"
#include "publish_batch.hpp"
#include "reconnect_policy.hpp"
#include "remembered_queues.hpp"
#include "resubscribe_schedule.hpp"
#include "session_hold.hpp"
#include "session_lending.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace queuey {

struct ConnectionOptions {
    std::vector<AmqpUrl> urls;  // tried in turn (the nodes of a cluster)
    SessionOptions session;
    ReconnectPolicy reconnect;
    Logger logger;
    // Declared again after every reconnect; shared by a client's connections.
    std::shared_ptr<RememberedQueues> remembered = std::make_shared<RememberedQueues>();
    // Opens the publishing channel (publisher confirms). A consuming connection does not
    // publish, so that a broker blocking publishers never stops its deliveries and acks.
    bool publishes = true;
    // Bodies larger are refused before they are written (message_size_limit.hpp); a lower
    // limit is learnt from the broker.
    std::uint64_t max_message_size = default_max_message_size;
};

// Who may touch what (issue 42). "The session's holder": the I/O thread, or the caller it
// lent the session to (borrow_session, to publish, settle or read deliveries); a lend
// starts and ends under the hand-over's mutex (session_lending.hpp), which orders the two's
// accesses. "I/O thread only": never a borrower. RabbitConnection's own fields say so as
// QY_GUARDED_BY(session_hold_), QY_GUARDED_BY(io_thread_role_) or
// QY_GUARDED_BY(lending_.mutex()), which clang checks
// (session_hold.hpp, mutex.hpp); the fields below say it in words.

// A consumer's channel. Shared by the I/O thread and the consuming thread.
struct Subscription {
    std::string queue;
    std::uint16_t prefetch = 0;
    std::uint16_t channel = 0;
    // Where its deliveries go; several subscriptions of one consumer share it.
    std::shared_ptr<DeliveryQueue> deliveries;
    // Bumped whenever the channel is replaced; a delivery of an older generation is stale.
    std::atomic<std::uint64_t> generation{1};
    // The session's holder only: the deliveries on the channel not settled yet, and acks
    // not sent yet.
    ChannelSettles settles;
    // The session's holder only: the broker cancelled the consumer (its queue was deleted, or the
    // node of a classic queue went down), or refused it on a new channel (after a
    // reconnect; the channel is closed then). After a cancel the channel stays open, so that the
    // settles of what it delivered still go out, and the subscription consumes again on
    // `resubscribe`'s schedule until that succeeds (channel_open false: on a channel opened anew)
    // or the consumer stops (stopped). Each try first declares the queue when the client remembers
    // it (redeclaring until the broker answers, then redeclared).
    bool cancelled_by_broker = false;
    ResubscribeSchedule resubscribe;
    bool channel_open = true;
    bool stopped = false;
    bool redeclaring = false;
    bool redeclared = false;
    // The session's holder only: the channel's consumer, and how many consumers it started over its
    // life (each takes a tag of its own).
    std::string consumer_tag;
    std::uint64_t consumers_started = 0;
    // The session's holder only: deliveries set aside (kept unsettled for a while) since the
    // current consumer started; they still hold its prefetch slots.
    std::size_t set_aside = 0;
    // When settle() was last called (steady clock ticks), by any consuming thread.
    std::atomic<std::int64_t> last_settled_at{0};
};

// A channel lent to one caller, who takes messages on it with basic.get (a
// QueueBrowser): the messages taken and not acknowledged go back to their queue when it
// is given back, or with the connection.
struct BorrowedChannel {
    std::string queue;
    std::uint16_t channel = 0;  // the session's holder only
    bool open = false;          // the session's holder only; false once closed or lost
};

enum class Settlement { ack, reject_requeue, reject_drop };

struct ConnectionCounters {
    std::uint64_t reconnects = 0;
    std::uint64_t stale_settles = 0;  // settles dropped because the channel was replaced
    // Publish calls whose frames (the publishes, or first a stale hold's declare) their
    // caller wrote itself, finding the I/O thread asleep.
    std::uint64_t written_by_caller = 0;
    // Of those, the calls that also read their own confirms, finding the socket left to
    // callers (docs/broker.md, a caller's own confirm).
    std::uint64_t confirmed_by_caller = 0;
    // Lends to a caller reading its confirms that the I/O thread took back before they
    // were in: it woke (a post, its once-a-second look) while the caller read.
    std::uint64_t readers_interrupted = 0;
    // Settles written by their caller: the consumer had nothing left to run, or the I/O
    // thread slept leaving the socket to the consumers.
    std::uint64_t settled_by_caller = 0;
    // Lends of the session to a consumer that found its deliveries taken, to read the
    // socket (docs/broker.md, a consumer's own deliveries).
    std::uint64_t read_by_consumer = 0;
    // Channels the broker closed while a caller held the session (it read the close),
    // reopened by the I/O thread once the session was back (docs/broker.md, what a caller
    // may wait for).
    std::uint64_t reopened_after_a_lend = 0;

    // A client's total over its connections.
    ConnectionCounters &operator+=(const ConnectionCounters &other) {
        reconnects += other.reconnects;
        stale_settles += other.stale_settles;
        written_by_caller += other.written_by_caller;
        confirmed_by_caller += other.confirmed_by_caller;
        readers_interrupted += other.readers_interrupted;
        settled_by_caller += other.settled_by_caller;
        read_by_consumer += other.read_by_consumer;
        reopened_after_a_lend += other.reopened_after_a_lend;
        return *this;
    }
};

class RabbitConnection {
public:
    using Clock = std::chrono::steady_clock;

    // Connects (each URL in turn) on the calling thread, then starts the I/O thread. The
    // first connect is not retried: failing at start is intended. Throws Error.
    explicit RabbitConnection(ConnectionOptions options);
    ~RabbitConnection();
    RabbitConnection(const RabbitConnection &) = delete;
    RabbitConnection &operator=(const RabbitConnection &) = delete;

    // Stops the I/O thread: what is queued or unconfirmed fails with QY_ERR_CLOSED, the
    // connection is closed. Idempotent.
    void close();

    // Declares a queue on the declarations channel and waits for the broker until
    // deadline; the I/O thread goes on meanwhile. With remember, it is declared again
    // after every reconnect. Throws Error: a refused declare QY_ERR_PRECONDITION_FAILED
    // naming the queue and the argument; no answer by the deadline QY_ERR_TIMEOUT (the
    // connection is kept: a blocked or slow broker is not a lost one).
    void declare(const QueueSpec &spec, bool remember, Clock::time_point deadline);

    // Publishes every message of the batch (mandatory, confirmed) and fills its waiter's
    // outcome for each index. Publishes not written by the batch's deadline fail with
    // QY_ERR_NOT_SENT, and so do all of them when the caller abandons the batch's claim
    // before the I/O thread starts on them (the caller then fills their outcomes).
    // The batch's holds are declared (not remembered) first, and the publishes are written
    // once the broker has answered them all: a hold queue's lease then starts as late as
    // it can. When one of those declares fails, every message fails with its error,
    // unsent. caller_waits: the caller waits for the outcomes next, and may read its
    // confirms itself; one with more to publish first leaves them to the I/O thread.
    void publish(std::shared_ptr<PublishBatch> batch, bool caller_waits = true);

    // Opens a channel with basic.qos(prefetch) and consumes queue; deliveries arrive in
    // sink. Throws Error.
    std::shared_ptr<Subscription> consume(const std::string &queue, std::uint16_t prefetch,
                                          std::shared_ptr<DeliveryQueue> sink,
                                          Clock::time_point deadline);
    // basic.cancel on the subscription's channel, which stays open: no delivery follows,
    // and every delivery the broker sent before is in the sink when this returns.
    void stop_consuming(const std::shared_ptr<Subscription> &subscription,
                        Clock::time_point deadline);
    // Closes the subscription's channel: its unsettled deliveries go back to the queue.
    void cancel(const std::shared_ptr<Subscription> &subscription);
    // The next delivery in sink, a consumer's queue on this connection, by the deadline,
    // or nothing. With sink empty and the I/O thread asleep leaving the socket to the
    // consumers, the caller reads the socket itself (docs/broker.md, a consumer's own
    // deliveries); otherwise it waits for the I/O thread. Throws what sink fails with.
    std::optional<IncomingDelivery> next_delivery(DeliveryQueue &sink, Clock::time_point deadline);

    // Queues the settlement of a delivery. Returns false, sending nothing, when the
    // delivery's generation is no longer current (the broker redelivers the job). When
    // the channel is replaced after this call but before the settle is written, the
    // settle is dropped too. Throws the connection's failure (QY_ERR_CLOSED after
    // close()) when it can send nothing.
    bool settle(const std::shared_ptr<Subscription> &subscription, const IncomingDelivery &delivery,
                Settlement settlement);
    // The delivery stays unsettled for a while (the worker parked it): it should not hold
    // one of the prefetch slots. Once half a prefetch is set aside, the channel's consumer
    // is replaced by a new one on the same channel (basic.cancel, basic.consume), whose
    // prefetch counts only its own deliveries; the channel and every delivery tag stay
    // valid. Not beyond max_set_aside_windows (backend.hpp) prefetches unsettled on the
    // channel: past that the parked deliveries fill the prefetch. Never throws.
    void set_aside(const std::shared_ptr<Subscription> &subscription,
                   const IncomingDelivery &delivery);
    // A passive declare on a channel of its own: the queue's counts. Throws Error
    // (QY_ERR_NOT_FOUND: no such queue).
    QueueCounts inspect(const std::string &queue, Clock::time_point deadline);
    // A channel of its own for taking the messages of queue one at a time. Throws Error.
    std::shared_ptr<BorrowedChannel> borrow_channel(const std::string &queue,
                                                    Clock::time_point deadline);
    // basic.get on the borrowed channel: the next message, or nullopt when the queue has
    // no more. Throws Error: QY_ERR_CONNECTION when the channel was lost (with the
    // connection, or closed by the broker), and with it every message it held.
    std::optional<BrowsedMessage> get(const std::shared_ptr<BorrowedChannel> &borrowed,
                                      Clock::time_point deadline);
    // Acknowledges a message taken on the borrowed channel; throws Error as get() does
    // (the message is then back in its queue).
    void ack(const std::shared_ptr<BorrowedChannel> &borrowed, std::uint64_t tag,
             Clock::time_point deadline);
    // Closes the borrowed channel: what it holds goes back to the queue. Never throws.
    void give_back(const std::shared_ptr<BorrowedChannel> &borrowed);

    // The broker blocked publishing on this connection (connection.blocked, a memory or
    // disk alarm): publishes wait, unsent, until it unblocks or their deadline passes.
    bool publishing_blocked() const { return blocked_.load(); }

    ConnectionCounters counters() const;
    // The redeliveries this connection caused: whatever its channels held unsettled when
    // they were closed or replaced, recorded before anything can be redelivered.
    OwnRedeliveries &own_redeliveries() { return own_redeliveries_; }
    PendingRequeues &pending_requeues() { return pending_requeues_; }
    // Returns once every ack settled before this call is written to the socket. Throws
    // Error (QY_ERR_TIMEOUT at deadline, or the connection's failure).
    void flush_acks(Clock::time_point deadline);

private:
    // What callers ask of the I/O thread. The per-job ones (a settle, a caller's publishes)
    // are plain data, so that posting them allocates nothing; anything else is a pair of
    // functions.
    struct SettleCommand {
        std::shared_ptr<Subscription> subscription;
        std::uint64_t tag;
        std::uint64_t generation;
        Settlement settlement;
    };
    struct PublishCommand {
        std::shared_ptr<PublishBatch> batch;
    };
    struct FunctionCommand {
        std::function<void(AmqpSession &)> run;
        std::function<void(const Error &)> fail;
    };
    using Command = std::variant<FunctionCommand, SettleCommand, PublishCommand>;

    void post(Command command);
    void wake_io_thread();  // through the eventfd
    void run_command(Command &command) QY_REQUIRES(io_thread_role_, session_hold_);
    static void fail_command(Command &command, const Error &error);
    void run_settle(const SettleCommand &settle) QY_REQUIRES(session_hold_);
    // Declares the hold queues, then queues the batch once the broker answered them all.
    void declare_then_publish(const std::shared_ptr<PublishBatch> &batch,
                              const HoldSpecs &declare_first) QY_REQUIRES(session_hold_);
    // After their declares: the entries of the holds' index that are due (hold_index.hpp).
    void index_holds(const HoldSpecs &holds, Clock::time_point now) QY_REQUIRES(session_hold_);
    // Writes the batch's publishes if its holds are fresh (hold_leases.hpp), or declares
    // them first.
    void run_publish(const std::shared_ptr<PublishBatch> &batch) QY_REQUIRES(session_hold_);
    // At close: the settles queued and the acks kept for a run are written.
    void send_settles_before_close() QY_REQUIRES(io_thread_role_, session_hold_);
    // Writes the batch's publishes, unless its caller gave up on them first.
    void write_publishes(const std::shared_ptr<PublishBatch> &batch) QY_REQUIRES(session_hold_);
    // How a caller holds the session it borrowed, and who asks (session_lending.hpp).
    using Lend = SessionLending::Lend;
    using Borrower = SessionLending::Borrower;
    // True, with how in lend, when the caller now holds the session.
    bool borrow_session(Borrower borrower, Lend &lend) QY_TRY_ACQUIRE(true, session_hold_);
    // Ends a lend: failure goes to the I/O thread (rethrown there), under_lock() runs
    // under the connection's mutex (counters), the I/O thread is woken if need be, and a
    // consumer that the lend kept out is nudged to read.
    template <typename UnderLock>
    void give_session_back(std::exception_ptr failure, Lend lend, UnderLock under_lock)
        QY_RELEASE(session_hold_);
    // The caller writes its settle itself when the session can be lent; false otherwise.
    // alone: no other settle is likely to follow within a wake-up.
    bool settle_while_io_sleeps(const SettleCommand &settle, bool alone);
    // A consumer holding the session: reads and dispatches frames until sink has a
    // delivery, the deadline passes, or the eventfd calls for the I/O thread. False,
    // having read nothing, when the session is not lent to consumers.
    bool read_deliveries_while_io_sleeps(DeliveryQueue &sink, Clock::time_point deadline);
    // The queue of a consumer that waits with no delivery to take, if any: nudged, it
    // reads the socket itself.
    std::shared_ptr<DeliveryQueue> consumer_left_waiting() const QY_REQUIRES(session_hold_);
    // The same for the I/O thread about to sleep: the candidates are noted while it holds
    // the session, the one to nudge is picked from them once callers may hold it.
    void note_consumers_to_nudge() QY_REQUIRES(io_thread_role_, session_hold_);
    std::shared_ptr<DeliveryQueue> noted_consumer_waiting() const QY_REQUIRES(io_thread_role_);
    // When the I/O thread sleeps in poll with nothing queued, the caller borrows the
    // session and writes its publishes itself, as the I/O thread would (docs/broker.md,
    // a caller's own publish): one wake-up fewer. When the I/O thread left the socket to
    // callers, the caller also reads until its confirms are in (a caller's own confirm):
    // one more wake-up fewer (unless !caller_waits). False, having written nothing,
    // otherwise.
    bool publish_while_io_sleeps(const std::shared_ptr<PublishBatch> &batch, bool caller_waits);
    // A caller holding the session (its confirms, a consumer's deliveries): reads and
    // dispatches frames, as the I/O thread would, until done(), the deadline passes, or
    // the eventfd calls for the I/O thread.
    void read_while_lent(Clock::time_point deadline, const std::function<bool()> &done)
        QY_REQUIRES(session_hold_);
    // How long the I/O thread sleeps at most: four times per heartbeat interval, so that
    // rabbitmq-c sends ours, and at least once a second.
    int longest_sleep_ms() const QY_REQUIRES(session_hold_);
    // Nothing is owed on the socket but heartbeats and the broker's own notices: a
    // publishing connection with no confirm or declare-ok outstanding, and no consumer.
    bool socket_owes_nothing() const QY_REQUIRES(session_hold_);
    // Nothing is owed on the socket but deliveries (and heartbeats, the broker's notices):
    // consumers consuming, no confirm, declare-ok or borrowed channel's answer outstanding.
    bool socket_owes_only_deliveries() const QY_REQUIRES(session_hold_);
    // About how many bytes writing the batch takes.
    static std::size_t bytes_to_write(const PublishBatch &batch);
    // The I/O thread, back from poll: takes the session back from a caller writing on it,
    // and returns what failed under that caller (rethrown on the I/O thread).
    std::exception_ptr take_session_back() QY_REQUIRES(io_thread_role_) QY_ACQUIRE(session_hold_);
    void count_stale_settle();
    template <typename Result>
    Result call(std::function<Result(AmqpSession &)> body, Clock::time_point deadline,
                const std::string &what);

    // Sends a declare; done runs on the I/O thread when the broker answers or the
    // connection is lost.
    void start_declare(const QueueSpec &spec, PendingDeclares::Done done)
        QY_REQUIRES(session_hold_);
    void run();
    void run_commands() QY_REQUIRES(io_thread_role_, session_hold_);
    void send_acks() QY_REQUIRES(session_hold_);
    // Reads a turn's frames; consumers handed a delivery are woken at its end.
    void read_frames() QY_REQUIRES(session_hold_);
    // Hands out the frames rabbitmq-c set aside during RPCs, reading nothing more.
    void read_queued_frames() QY_REQUIRES(session_hold_);
    void dispatch(const amqp_frame_t &frame) QY_REQUIRES(session_hold_);
    // A delivery whose content is in: to its subscription's consumers.
    void hand_over(IncomingDelivery delivery) QY_REQUIRES(session_hold_);
    void wake_handed() QY_REQUIRES(session_hold_);
    void wait_for_input() QY_REQUIRES(io_thread_role_, session_hold_);
    void on_channel_closed(amqp_channel_t channel, qy_status status, const std::string &text)
        QY_REQUIRES(session_hold_);
    // Reopens a channel the broker closed (round trips): now on the I/O thread, later on
    // a lend (channels_to_reopen_).
    void reopen_or_leave(amqp_channel_t channel) QY_REQUIRES(session_hold_);
    void reopen(amqp_channel_t channel) QY_REQUIRES(session_hold_);
    // At the start of the I/O thread's turn: writes what a caller left unsent and reopens
    // the channels it left closed.
    void finish_what_callers_left() QY_REQUIRES(io_thread_role_, session_hold_);
    // A returned message's content is in: its publish's outcome (returning_).
    void on_returned(const std::string &message_id) QY_REQUIRES(session_hold_);
    void on_connection_lost(const Error &error) QY_REQUIRES(io_thread_role_, session_hold_);
    bool reconnect() QY_REQUIRES(io_thread_role_, session_hold_);
    // Connects to the first URL that answers and opens the fixed channels.
    void connect() QY_REQUIRES(session_hold_);
    // After a reconnect: declares the remembered queues, then subscribes again.
    void restore() QY_REQUIRES(io_thread_role_, session_hold_);
    void open_subscription(Subscription &subscription) QY_REQUIRES(session_hold_);
    // Consumes again on the subscriptions the broker cancelled whose time has come,
    // declaring their queue first when it is remembered (a deleted queue comes back).
    void resubscribe_due() QY_REQUIRES(io_thread_role_, session_hold_);
    // Logs why a subscription is not consuming, and when it tries again.
    void warn_resubscribing(const Subscription &subscription, const std::string &why);
    // The broker refused to let the subscription consume again on a new channel (after a
    // reconnect, or a channel it closed): it waits to consume on the resubscribe schedule,
    // as after a cancel. False for a consumer that stops, which fails instead.
    bool wait_to_consume(Subscription &subscription, const ChannelClosed &refused)
        QY_REQUIRES(session_hold_);
    // How long the I/O thread may wait for input before a resubscribe is due: at most cap.
    int ms_until_resubscribe(int cap_ms) const QY_REQUIRES(session_hold_);
    // Starts a consumer on the subscription's open channel under a new tag.
    void start_consumer(Subscription &subscription) QY_REQUIRES(session_hold_);
    // Runs body on the I/O thread with the borrowed channel, which must still be open.
    template <typename Result>
    Result on_borrowed(const std::shared_ptr<BorrowedChannel> &borrowed,
                       std::function<Result(AmqpSession &)> body, Clock::time_point deadline,
                       const std::string &what);
    // The lowest channel number no subscription holds: numbers are reused, or a client
    // would run out after channel_max consumers opened over its life.
    amqp_channel_t free_channel() const QY_REQUIRES(session_hold_);
    // The channel's unsettled deliveries and unsent acks go back to the broker with it:
    // records them as this process's own redeliveries and forgets their tags. Closed by
    // the broker's consumer timeout, the unsettled ones that a consumer took (not among
    // its deliveries' waiting ones) and that ran into the timeout are recorded as runs the
    // timeout cut; the others cost nothing (consumer_timeout.hpp).
    void hand_back(Subscription &subscription,
                   std::optional<std::chrono::milliseconds> consumer_timeout = std::nullopt)
        QY_REQUIRES(session_hold_);
    void fail_everything(const Error &error) QY_REQUIRES(io_thread_role_, session_hold_);

    const ConnectionOptions options_;
    // The right to touch the session and what goes with it (session_hold.hpp): the I/O
    // thread's, lent to one caller at a time. Checked by the compiler, free at run time.
    SessionHold session_hold_;
    IoThreadRole io_thread_role_;
    // After construction, the session's holder only.
    std::unique_ptr<AmqpSession> session_ QY_GUARDED_BY(session_hold_);
    ConfirmTracker tracker_ QY_GUARDED_BY(session_hold_);
    ArrivingContents arriving_ QY_GUARDED_BY(session_hold_);  // the reader's
    // A basic.return on the publishing channel whose content is still arriving.
    struct Returning {
        std::uint16_t code = 0;
        std::string text;
        std::string queue;
    };
    std::optional<Returning> returning_ QY_GUARDED_BY(session_hold_);
    // A caller holds the session (borrow_session to give_session_back).
    bool lent_ QY_GUARDED_BY(session_hold_) = false;
    // Channels the broker closed under a caller, reopened by the I/O thread, and the
    // declares to send again on the declarations channel once it is open.
    std::vector<amqp_channel_t> channels_to_reopen_ QY_GUARDED_BY(session_hold_);
    std::vector<QueueSpec> declares_again_ QY_GUARDED_BY(session_hold_);
    HoldLeases hold_leases_;
    HoldIndexEntries hold_index_entries_ QY_GUARDED_BY(session_hold_);
    std::vector<std::shared_ptr<DeliveryQueue>> nudge_candidates_ QY_GUARDED_BY(io_thread_role_);
    OwnRedeliveries own_redeliveries_;
    PendingRequeues pending_requeues_;
    PendingDeclares declares_ QY_GUARDED_BY(session_hold_);
    std::uint64_t max_message_size_ QY_GUARDED_BY(session_hold_);
    bool consumer_timeout_logged_ QY_GUARDED_BY(session_hold_) = false;
    // When the reader's turn read its first delivery: every delivery's arrival time in
    // ChannelSettles (read once per turn, not per delivery; the reader's).
    std::optional<Clock::time_point> turn_read_at_ QY_GUARDED_BY(session_hold_);
    std::vector<std::shared_ptr<Subscription>> subscriptions_ QY_GUARDED_BY(session_hold_);
    // The delivery queues read_frames handed deliveries to in this turn (the reader's).
    std::vector<std::shared_ptr<DeliveryQueue>> handed_to_ QY_GUARDED_BY(session_hold_);
    std::vector<std::shared_ptr<BorrowedChannel>> borrowed_ QY_GUARDED_BY(session_hold_);
    std::atomic<bool> blocked_{false};  // connection.blocked by the broker; set by the reader
    std::string last_error_ QY_GUARDED_BY(io_thread_role_);
    // The commands of the current turn; kept, with its capacity, from turn to turn.
    std::vector<Command> running_ QY_GUARDED_BY(io_thread_role_);
    // The last poll saw input on the socket, or did not look: read_frames() may read it.
    bool socket_readable_ QY_GUARDED_BY(session_hold_) = true;

    // Who holds the session, and whom the I/O thread lends it to; its mutex guards the
    // fields below, on which a lend depends.
    SessionLending lending_;
    std::vector<Command> commands_ QY_GUARDED_BY(lending_.mutex());
    // Set when closed or when reconnecting gave up.
    std::optional<Error> failed_ QY_GUARDED_BY(lending_.mutex());
    ConnectionCounters counters_ QY_GUARDED_BY(lending_.mutex());

    int wakeup_fd_ = -1;  // eventfd: commands posted or close requested
    std::atomic<bool> closing_{false};
    std::once_flag joined_;
    std::thread io_thread_;
};

// Defined here: the consumer's reads (consumer_reads.cpp) give the session back too.
template <typename UnderLock>
void RabbitConnection::give_session_back(std::exception_ptr failure, Lend lend,
                                         UnderLock under_lock) {
    // rabbitmq-c reads the socket before a publish when nothing came for two heartbeats;
    // frames it buffered then wake no poll, so the I/O thread is woken for them. An I/O
    // thread that left the socket is woken for whatever is still owed on it, or to read
    // for consumers that no longer read themselves (a queue that became shared).
    using Needs = SessionLending::Needs;
    Needs needs = Needs::nothing;
    if (session_->output_left() || !channels_to_reopen_.empty())
        needs = Needs::the_session;
    else if (session_->has_buffered_input() || (lend == Lend::to_read && !socket_owes_nothing()) ||
             (lend == Lend::to_consume && !socket_owes_only_deliveries()))
        needs = Needs::a_look;
    // Found while the lend still holds the I/O thread's state; nudged once it is free.
    const std::shared_ptr<DeliveryQueue> waiting = consumer_left_waiting();
    bool wake;
    {
        MutexLock lock(lending_.mutex());
        lent_ = false;
        session_hold_.give();
        wake = lending_.give_back(std::move(failure), needs);
        under_lock();
    }
    if (wake) wake_io_thread();
    if (waiting) waiting->nudge();
}

}  // namespace queuey
