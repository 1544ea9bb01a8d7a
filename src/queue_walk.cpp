#include "queue_walk.hpp"

#include "error.hpp"
#include "topology.hpp"

#include <vector>

namespace queuey {

namespace {

// Replays publish this many at once: one confirm round trip each, not one per letter.
constexpr std::size_t replay_batch = 100;

// Hands each message of browser that filter selects to take, in queue order, until the
// queue has no more or take returns false.
void for_each_selected(QueueBrowser &browser, const MessageFilter &filter,
                       const std::function<bool(QueueMessage &&)> &take) {
    const std::uint64_t now_ms = unix_now_ms();
    while (std::optional<BrowsedMessage> next = browser.next()) {
        QueueMessage message = read_queue_message(std::move(*next));
        if (filter.selects(message, now_ms) && !take(std::move(message))) return;
    }
}

// Walks every selected message: acted on in batches by act, which returns the failure
// of each (nullopt: done, so it is removed).
using Act = std::function<std::vector<std::optional<Error>>(const std::vector<QueueMessage> &)>;

WalkOutcome walk_selected(Backend &backend, const std::string &queue_name,
                          const MessageFilter &filter, const Act &act) {
    WalkOutcome outcome;
    auto fail = [&outcome](const Error &error) {
        ++outcome.left;
        if (!outcome.first_failure) outcome.first_failure = error;
    };
    std::unique_ptr<QueueBrowser> browser = backend.browse(queue_name);
    std::vector<QueueMessage> batch;
    auto flush = [&] {
        const std::vector<std::optional<Error>> failures = act(batch);
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (failures[i]) {
                fail(*failures[i]);
                continue;
            }
            try {
                browser->remove(batch[i].message);
                ++outcome.done;
            } catch (const Error &error) {
                fail(error);
            }
        }
        batch.clear();
    };
    for_each_selected(*browser, filter, [&](QueueMessage &&message) {
        batch.push_back(std::move(message));
        if (batch.size() == replay_batch) flush();
        return true;
    });
    flush();
    browser->close();
    return outcome;
}

}  // namespace

void browse_messages(Backend &backend, const std::string &queue_name, const MessageFilter &filter,
                     std::size_t limit, const std::function<bool(const QueueMessage &)> &visit) {
    std::unique_ptr<QueueBrowser> browser = backend.browse(queue_name);
    std::size_t visited = 0;
    for_each_selected(*browser, filter, [&](QueueMessage &&message) {
        return visit(message) && ++visited != limit;  // limit 0: never reached
    });
    browser->close();
}

WalkOutcome replay_dead_letters(Backend &backend, const std::string &queue,
                                const MessageFilter &filter, bool keep_attempt) {
    return walk_selected(
        backend, dead_letter_queue_name(queue), filter,
        [&backend, keep_attempt](const std::vector<QueueMessage> &letters) {
            std::vector<std::optional<Error>> failures(letters.size());
            std::vector<Envelope> replays;
            std::vector<std::size_t> replayed;  // the index in letters of each replay
            for (std::size_t i = 0; i < letters.size(); ++i) {
                const QueueMessage &letter = letters[i];
                if (!letter.envelope) {
                    failures[i] = Error(QY_ERR_BAD_ENVELOPE, "",
                                        "dead letter " + letter.job_id +
                                            " is not an envelope and cannot run again (" +
                                            letter.decode_error + ")");
                    continue;
                }
                Envelope replay = *letter.envelope;
                replay.queue = letter.original_queue;
                if (!keep_attempt) {
                    replay.attempt = 1;
                    replay.deferrals = 0;
                }
                replays.push_back(std::move(replay));
                replayed.push_back(i);
            }
            if (replays.empty()) return failures;
            const std::vector<PublishOutcome> outcomes =
                backend.publish(refs_to(replays), std::nullopt);
            for (std::size_t j = 0; j < outcomes.size(); ++j)
                if (outcomes[j].status != QY_OK)
                    failures[replayed[j]] = Error(outcomes[j].status, "", outcomes[j].message);
            return failures;
        });
}

WalkOutcome purge_dead_letters(Backend &backend, const std::string &queue,
                               const MessageFilter &filter) {
    return walk_selected(backend, dead_letter_queue_name(queue), filter,
                         [](const std::vector<QueueMessage> &letters) {
                             return std::vector<std::optional<Error>>(letters.size());
                         });
}

}  // namespace queuey
