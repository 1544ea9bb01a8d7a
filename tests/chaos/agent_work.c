/*
 * chaos_agent work URL QUEUE CONCURRENCY MAX_ATTEMPTS
 *
 * Runs a worker on QUEUE (CONCURRENCY 0: the default, the prefetch) until SIGTERM or
 * SIGINT, then shuts it down gracefully. Retry policy: MAX_ATTEMPTS attempts (1 is
 * queuey's default), 1 s apart. It handles job type "chaos.job", and the types "ok",
 * "retry-once" and "defer-once" of the Rust worker of tests/interop/rust, so that the
 * two can share a queue (the suite gives those jobs the payloads that match their
 * types). The handler does what the job's compact JSON payload says, in this order:
 *
 *   "sleep_ms":M        sleeps M ms
 *   "kill":true         kills its own process (SIGKILL) on every run
 *   "defer_once":true   defers the job by 1 s when it has no deferral yet
 *   "fail_once":true    fails with a retryable error on attempt 1
 *   otherwise           succeeds
 *
 * Prints, each line flushed at once:
 *   started <job_id> attempt <n> deferrals <n>
 *   succeeded <job_id> | deferring <job_id> | failing <job_id>
 *   dead <job_id> <reason>          from the dead-letter hook
 *   counters succeeded=.. retried=.. ... settle_failures=..
 *                                   after the shutdown (print_counters)
 */
#define _POSIX_C_SOURCE 200809L

#include "agent.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether the compact JSON payload has "key":true. */
static int has_flag(const char *payload, const char *key) {
    char text[64];
    snprintf(text, sizeof text, "\"%s\":true", key);
    return strstr(payload, text) != NULL;
}

/* The whole number after "key": in the compact JSON payload, or 0. */
static long number_of(const char *payload, const char *key) {
    char text[64];
    const char *at;
    snprintf(text, sizeof text, "\"%s\":", key);
    at = strstr(payload, text);
    return at == NULL ? 0 : strtol(at + strlen(text), NULL, 10);
}

static void pause_ms(long ms) {
    struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0) {}
}

/* Does what the payload says and prints it. */
static qy_job_result handle(qy_job *job) {
    const qy_envelope *env = qy_job_envelope(job);
    const char *payload = qy_envelope_payload(env, NULL);
    const char *id = qy_envelope_job_id(env);
    qy_error *err = NULL;

    agent_line("started %s attempt %u deferrals %u", id, (unsigned)qy_envelope_attempt(env),
               (unsigned)qy_envelope_deferrals(env));
    pause_ms(number_of(payload, "sleep_ms"));
    if (has_flag(payload, "kill")) raise(SIGKILL);
    if (has_flag(payload, "defer_once") && qy_envelope_deferrals(env) == 0) {
        if (qy_job_set_defer(job, 1000, "chaos: planned deferral", &err) != QY_OK)
            agent_fail("qy_job_set_defer", err);
        agent_line("deferring %s", id);
        return QY_JOB_DEFER;
    }
    if (has_flag(payload, "fail_once") && qy_envelope_attempt(env) == 1) {
        if (qy_job_set_error(job, "chaos: planned failure", &err) != QY_OK)
            agent_fail("qy_job_set_error", err);
        agent_line("failing %s", id);
        return QY_JOB_RETRY;
    }
    agent_line("succeeded %s", id);
    return QY_JOB_SUCCESS;
}

static qy_job_result run_job(qy_job *job, void *user_data) {
    const qy_job_result result = handle(job);
    (void)user_data;
    agent_count_run();
    return result;
}

static void report_dead_letter(const qy_envelope *env, const char *reason, void *user_data) {
    (void)user_data;
    agent_line("dead %s %s", qy_envelope_job_id(env), reason);
}

/* Waits for the signals agent_block_signals() blocked: SIGUSR1 stops enqueueing (mode
   both), SIGTERM and SIGINT stop enqueueing and shut the worker down gracefully. */
static void *stop_on_signal(void *worker) {
    sigset_t signals;
    int received = 0;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGUSR1);
    do {
        sigwait(&signals, &received);
        agent_stop_producing();
    } while (received == SIGUSR1);
    qy_worker_shutdown(worker);
    return NULL;
}

static qy_worker *new_worker(qy_client *client, const char *queue, long concurrency,
                             long max_attempts) {
    static const char *const job_types[] = {AGENT_JOB_TYPE, "ok", "retry-once", "defer-once"};
    qy_error *err = NULL;
    qy_retry_policy *policy = NULL;
    qy_worker *worker = NULL;
    const char *queues[1];
    size_t i;

    queues[0] = queue;
    if (qy_worker_new(client, queues, 1, &worker, &err) != QY_OK) agent_fail("qy_worker_new", err);
    if (qy_retry_policy_new((uint32_t)max_attempts, &policy, &err) != QY_OK ||
        qy_retry_policy_set_fixed(policy, 1000, &err) != QY_OK ||
        qy_worker_set_default_retry(worker, policy, &err) != QY_OK)
        agent_fail("the retry policy", err);
    qy_retry_policy_free(policy);
    if (qy_worker_set_concurrency(worker, (uint32_t)concurrency, &err) != QY_OK ||
        qy_worker_set_dead_letter_hook(worker, report_dead_letter, NULL, NULL, &err) != QY_OK)
        agent_fail("configuring the worker", err);
    for (i = 0; i < sizeof job_types / sizeof job_types[0]; ++i)
        if (qy_worker_register(worker, job_types[i], run_job, NULL, NULL, NULL, &err) != QY_OK)
            agent_fail("qy_worker_register", err);
    return worker;
}

/* The "counters" line: what the worker did, by qy_counter. */
static void print_counters(const qy_worker *worker) {
    static const struct {
        const char *name;
        qy_counter counter;
    } shown[] = {
        {"succeeded", QY_COUNTER_SUCCEEDED},
        {"retried", QY_COUNTER_RETRIED},
        {"deferred", QY_COUNTER_DEFERRED},
        {"worker_lost", QY_COUNTER_WORKER_LOST},
        {"dead_lettered_lost", QY_COUNTER_DEAD_LETTERED_LOST},
        {"dead_lettered_fatal", QY_COUNTER_DEAD_LETTERED_FATAL},
        {"dead_lettered_exhausted", QY_COUNTER_DEAD_LETTERED_EXHAUSTED},
        {"dead_lettered_unknown_type", QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE},
        {"dead_lettered_undecodable", QY_COUNTER_DEAD_LETTERED_UNDECODABLE},
        {"settle_failures", QY_COUNTER_SETTLE_FAILURES},
    };
    char line[512] = "counters";
    size_t used = strlen(line), i;
    for (i = 0; i < sizeof shown / sizeof shown[0] && used < sizeof line; ++i)
        used += (size_t)snprintf(line + used, sizeof line - used, " %s=%llu", shown[i].name,
                                 (unsigned long long)qy_worker_counter(worker, shown[i].counter));
    agent_line("%s", line);
}

int agent_run_worker(qy_client *client, const char *queue, long concurrency, long max_attempts) {
    qy_error *err = NULL;
    qy_worker *worker = new_worker(client, queue, concurrency, max_attempts);
    pthread_t waiter;
    if (pthread_create(&waiter, NULL, stop_on_signal, worker) != 0) {
        fprintf(stderr, "chaos_agent: pthread_create failed\n");
        return 3;
    }
    if (qy_worker_run(worker, &err) != QY_OK) agent_fail("qy_worker_run", err);

    print_counters(worker);
    pthread_join(waiter, NULL);
    qy_worker_free(worker);
    return 0;
}

int agent_work(int argc, char **argv) {
    qy_client *client;
    long concurrency, max_attempts;
    int status;

    if (argc != 4) agent_usage_error("work takes URL QUEUE CONCURRENCY MAX_ATTEMPTS");
    concurrency = agent_number(argv[2], 0, 1024, "CONCURRENCY");
    max_attempts = agent_number(argv[3], 1, 100, "MAX_ATTEMPTS");
    agent_block_signals();
    client = agent_connect(argv[0], "chaos_agent work", argv[1]);
    status = agent_run_worker(client, argv[1], concurrency, max_attempts);
    qy_client_free(client);
    return status;
}
