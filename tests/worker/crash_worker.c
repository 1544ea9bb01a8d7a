/*
 * crash_worker: a worker process for the crash-loop tests (crash_loop_test.cpp), written
 * against the public C API only.
 *
 *   crash_worker URL QUEUE MAX_ATTEMPTS [MAX_LOST_RUNS]
 *
 * Declares QUEUE (defaults, delay granularity 50 ms; a quorum queue when the environment
 * has CRASH_WORKER_QUEUE_TYPE=quorum), then runs a worker for job type
 * "crash.job" with a retry policy of MAX_ATTEMPTS attempts (no backoff) and, when given,
 * a lost-run budget of MAX_LOST_RUNS, until SIGTERM or SIGINT. The handler looks at the
 * compact JSON payload:
 *
 *   {"crash":true}              kills its own process (raise(SIGKILL)) on every run
 *   {"crash_unless":"PATH"}     kills its own process unless the file PATH exists, which
 *                               it creates first: the first run crashes, later ones do not
 *   {"crash_on_attempt":N}      kills its own process on attempt N only
 *   {"sleep_ms":M}              sleeps M ms first (with "sleep_on_attempt":N: on attempt N only)
 *   anything else               succeeds
 *
 * It prints, each line flushed at once:
 *   started <job_id> attempt <n>     when the handler starts
 *   ran <job_id> attempt <n>         when it succeeds
 *   dead <job_id> <reason>           from the dead-letter hook
 *   log <level> <message>            each of queuey's log lines
 *   counters succeeded=.. retried=.. worker_lost=.. dead_lettered_exhausted=..
 *            dead_lettered_lost=.. settle_failures=..   (one line)
 *                                    after qy_worker_run() returned
 * Exit status: 0 after a shutdown, 2 for bad arguments, 3 when a queuey call fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <queuey/queuey.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *job_type = "crash.job";

static void fail(const char *what, qy_error *err) {
    fprintf(stderr, "crash_worker: %s: %s (%s)\n", what, qy_error_message(err),
            qy_status_name(qy_error_status(err)));
    qy_error_free(err);
    exit(3);
}

/* The integer after "key": in a compact JSON object, or -1. */
static long json_int(const char *payload, const char *key) {
    char pattern[64];
    const char *at;
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    at = strstr(payload, pattern);
    if (at == NULL) return -1;
    return strtol(at + strlen(pattern), NULL, 10);
}

/* Whether the file named by the string after "key": exists; creates it when it does not.
   0 when the payload has no such key. */
static int marker_was_absent(const char *payload, const char *key) {
    char pattern[64], path[4096];
    const char *at, *end;
    FILE *file;
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    at = strstr(payload, pattern);
    if (at == NULL) return 0;
    at += strlen(pattern);
    end = strchr(at, '"');
    if (end == NULL || (size_t)(end - at) >= sizeof path) return 0;
    memcpy(path, at, (size_t)(end - at));
    path[end - at] = '\0';
    if (access(path, F_OK) == 0) return 0;
    file = fopen(path, "w");
    if (file != NULL) fclose(file);
    return 1;
}

static void sleep_ms(long ms) {
    struct timespec wait;
    wait.tv_sec = ms / 1000;
    wait.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&wait, &wait) != 0) {}
}

static qy_job_result handle(qy_job *job, void *user_data) {
    const qy_envelope *env = qy_job_envelope(job);
    const char *payload = qy_envelope_payload(env, NULL);
    const char *id = qy_envelope_job_id(env);
    const unsigned attempt = (unsigned)qy_envelope_attempt(env);
    long sleep_for, sleep_on;
    (void)user_data;

    printf("started %s attempt %u\n", id, attempt);
    fflush(stdout);
    if (strstr(payload, "\"crash\":true") != NULL) raise(SIGKILL);
    if (marker_was_absent(payload, "crash_unless")) raise(SIGKILL);
    if (json_int(payload, "crash_on_attempt") == (long)attempt) raise(SIGKILL);
    sleep_for = json_int(payload, "sleep_ms");
    sleep_on = json_int(payload, "sleep_on_attempt");
    if (sleep_for > 0 && (sleep_on < 0 || sleep_on == (long)attempt)) sleep_ms(sleep_for);
    printf("ran %s attempt %u\n", id, attempt);
    fflush(stdout);
    return QY_JOB_SUCCESS;
}

static void on_dead_letter(const qy_envelope *env, const char *reason, void *user_data) {
    (void)user_data;
    printf("dead %s %s\n", qy_envelope_job_id(env), reason);
    fflush(stdout);
}

static void on_log(qy_log_level level, const char *message, void *user_data) {
    (void)user_data;
    printf("log %d %s\n", (int)level, message);
    fflush(stdout);
}

/* Waits for SIGTERM or SIGINT (blocked in every thread) and shuts the worker down. */
static void *signal_waiter(void *arg) {
    qy_worker *worker = arg;
    sigset_t signals;
    int received = 0;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigwait(&signals, &received);
    qy_worker_shutdown(worker);
    return NULL;
}

int main(int argc, char **argv) {
    qy_error *err = NULL;
    qy_client_options *opts = NULL;
    qy_client *client = NULL;
    qy_queue_config *config = NULL;
    qy_retry_policy *policy = NULL;
    qy_worker *worker = NULL;
    sigset_t signals;
    pthread_t waiter;
    const char *queues[1];
    const char *queue_type;
    long max_attempts, max_lost_runs = 0;

    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: crash_worker URL QUEUE MAX_ATTEMPTS [MAX_LOST_RUNS]\n");
        return 2;
    }
    max_attempts = strtol(argv[3], NULL, 10);
    if (argc == 5) max_lost_runs = strtol(argv[4], NULL, 10);
    if (max_attempts < 1 || (argc == 5 && max_lost_runs < 1)) {
        fprintf(stderr, "crash_worker: MAX_ATTEMPTS and MAX_LOST_RUNS must be at least 1\n");
        return 2;
    }

    /* Block the stop signals before any thread starts, so that only the waiter gets them. */
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);

    if (qy_client_options_new(&opts, &err) != QY_OK) fail("qy_client_options_new", err);
    if (qy_client_options_set_connection_name(opts, "crash_worker", &err) != QY_OK)
        fail("qy_client_options_set_connection_name", err);
    if (qy_client_options_set_log(opts, on_log, NULL, NULL, &err) != QY_OK)
        fail("qy_client_options_set_log", err);
    if (qy_client_new(argv[1], opts, &client, &err) != QY_OK) fail("qy_client_new", err);
    qy_client_options_free(opts);

    if (qy_queue_config_new(argv[2], &config, &err) != QY_OK) fail("qy_queue_config_new", err);
    if (qy_queue_config_set_delay_granularity_ms(config, 50, &err) != QY_OK)
        fail("qy_queue_config_set_delay_granularity_ms", err);
    queue_type = getenv("CRASH_WORKER_QUEUE_TYPE");
    if (queue_type != NULL && strcmp(queue_type, "quorum") == 0 &&
        qy_queue_config_set_type(config, QY_QUEUE_QUORUM, &err) != QY_OK)
        fail("qy_queue_config_set_type", err);
    if (qy_client_declare(client, config, &err) != QY_OK) fail("qy_client_declare", err);
    qy_queue_config_free(config);

    if (qy_retry_policy_new((uint32_t)max_attempts, &policy, &err) != QY_OK)
        fail("qy_retry_policy_new", err);
    queues[0] = argv[2];
    if (qy_worker_new(client, queues, 1, &worker, &err) != QY_OK) fail("qy_worker_new", err);
    if (qy_worker_set_default_retry(worker, policy, &err) != QY_OK)
        fail("qy_worker_set_default_retry", err);
    qy_retry_policy_free(policy);
    if (max_lost_runs > 0 &&
        qy_worker_set_max_lost_runs(worker, (uint32_t)max_lost_runs, &err) != QY_OK)
        fail("qy_worker_set_max_lost_runs", err);
    if (qy_worker_set_dead_letter_hook(worker, on_dead_letter, NULL, NULL, &err) != QY_OK)
        fail("qy_worker_set_dead_letter_hook", err);
    if (qy_worker_register(worker, job_type, handle, NULL, NULL, NULL, &err) != QY_OK)
        fail("qy_worker_register", err);

    if (pthread_create(&waiter, NULL, signal_waiter, worker) != 0) {
        fprintf(stderr, "crash_worker: pthread_create failed\n");
        return 3;
    }
    if (qy_worker_run(worker, &err) != QY_OK) fail("qy_worker_run", err);

    printf(
        "counters succeeded=%llu retried=%llu worker_lost=%llu dead_lettered_exhausted=%llu "
        "dead_lettered_lost=%llu settle_failures=%llu\n",
        (unsigned long long)qy_worker_counter(worker, QY_COUNTER_SUCCEEDED),
        (unsigned long long)qy_worker_counter(worker, QY_COUNTER_RETRIED),
        (unsigned long long)qy_worker_counter(worker, QY_COUNTER_WORKER_LOST),
        (unsigned long long)qy_worker_counter(worker, QY_COUNTER_DEAD_LETTERED_EXHAUSTED),
        (unsigned long long)qy_worker_counter(worker, QY_COUNTER_DEAD_LETTERED_LOST),
        (unsigned long long)qy_worker_counter(worker, QY_COUNTER_SETTLE_FAILURES));
    fflush(stdout);
    pthread_join(waiter, NULL);
    qy_worker_free(worker);
    qy_client_free(client);
    return 0;
}
