// qy_client_memory_*: inspecting a memory:// client, for tests of users' handlers.
#include "guard.hpp"

using queuey::capi::guarded;
using queuey::capi::require;
using queuey::capi::string_copy;

namespace {

queuey::MemoryBackend &memory_of(qy_client *client) {
    auto &target = require(client, "client");
    if (!target.memory)
        throw queuey::Error(QY_ERR_UNSUPPORTED, "", "only a memory:// client can be inspected");
    return *target.memory;
}

using Totals = queuey::MemorySnapshot::Totals;

// From the exact totals, not the histories: those keep only the newest entries.
template <typename Matches>
uint64_t history_total(const queuey::MemorySnapshot &snapshot, const Matches &matches,
                       uint64_t Totals::*kind) {
    uint64_t total = 0;
    for (const auto &[name, totals] : snapshot.totals)
        if (matches(name)) total += totals.*kind;
    return total;
}

uint64_t count(const queuey::MemorySnapshot &snapshot, const char *queue, qy_memory_count what) {
    const auto matches = [queue](const std::string &name) { return queue == nullptr || name == queue; };
    // Without a queue named, jobs count in the declared queues, not in their dead letters.
    const auto counts = [&](const std::string &name, const queuey::MemorySnapshot::Queue &state) {
        return queue == nullptr ? state.declared : name == queue;
    };
    uint64_t total = 0;
    switch (what) {
        case QY_MEMORY_PENDING:
        case QY_MEMORY_IN_FLIGHT:
            for (const auto &[name, state] : snapshot.queues)
                if (counts(name, state)) total += what == QY_MEMORY_PENDING ? state.pending.size() : state.in_flight;
            return total;
        case QY_MEMORY_HELD:
            for (const auto &held : snapshot.held) total += matches(held.queue);
            return total;
        case QY_MEMORY_ACKED: return history_total(snapshot, matches, &Totals::acked);
        case QY_MEMORY_RETRIED: return history_total(snapshot, matches, &Totals::retried);
        case QY_MEMORY_DEFERRED: return history_total(snapshot, matches, &Totals::deferred);
        case QY_MEMORY_DEAD_LETTERED:
            return history_total(snapshot, matches, &Totals::dead_lettered);
    }
    throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "what", "not a qy_memory_count value");
}

}  // namespace

extern "C" {

qy_status qy_client_memory_count(qy_client *client, const char *queue, qy_memory_count what,
                                 uint64_t *out, qy_error **err) {
    return guarded(err, [&] { require(out, "out") = count(memory_of(client).snapshot(), queue, what); });
}

qy_status qy_client_memory_dead_letter(qy_client *client, size_t index, qy_envelope **env,
                                       char **reason, qy_error **err) {
    if (env != nullptr) *env = nullptr;
    if (reason != nullptr) *reason = nullptr;
    return guarded(err, [&] {
        const auto snapshot = memory_of(client).snapshot();
        auto &env_out = require(env, "env");
        auto &reason_out = require(reason, "reason");
        if (index >= snapshot.dead_lettered.size())
            throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "index",
                                "there are " + std::to_string(snapshot.dead_lettered.size()) + " dead letters");
        const auto &dead = snapshot.dead_lettered[index];
        auto envelope = std::make_unique<qy_envelope>(qy_envelope{dead.envelope});
        reason_out = string_copy(dead.reason);
        env_out = envelope.release();
    });
}

qy_status qy_client_memory_wait_idle(qy_client *client, uint32_t timeout_ms, qy_error **err) {
    return guarded(err, [&] {
        if (!memory_of(client).wait_until_idle(std::chrono::milliseconds(timeout_ms)))
            throw queuey::Error(QY_ERR_TIMEOUT, "", "jobs are still pending, held or in flight");
    });
}

}  // extern "C"
