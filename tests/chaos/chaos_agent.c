/*
 * chaos_agent: the producer and worker processes of the chaos suite (test_chaos.py).
 *
 *   chaos_agent produce URL QUEUE COUNT THREADS PAYLOAD [JOB_TYPE]
 *                                                          (agent_produce.c)
 *   chaos_agent work URL QUEUE CONCURRENCY MAX_ATTEMPTS    (agent_work.c)
 *   chaos_agent publish URL QUEUE                          (agent_publish.c)
 *   chaos_agent both URL QUEUE CONCURRENCY MAX_ATTEMPTS BACKLOG PAYLOAD...
 *                                                          (agent_both.c)
 *
 * URL may be a comma-separated list (the nodes of a cluster, tried in turn).
 * QUEUEY_CHAOS_HEARTBEAT_S, when set, is the AMQP heartbeat in seconds,
 * QUEUEY_CHAOS_PUBLISH_TIMEOUT_MS the publish timeout, and QUEUEY_CHAOS_QUEUE_TYPE=quorum
 * declares the queue as a quorum queue (tests/cluster).
 * Exit status: 0 when done, 2 for bad arguments, 3 when a queuey call fails.
 */
#define _POSIX_C_SOURCE 200809L

#include "agent.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void agent_fail(const char *what, qy_error *err) {
    fprintf(stderr, "chaos_agent: %s: %s (%s)\n", what, qy_error_message(err),
            qy_status_name(qy_error_status(err)));
    qy_error_free(err);
    exit(3);
}

void agent_usage_error(const char *message) {
    fprintf(stderr, "chaos_agent: %s\n", message);
    fprintf(stderr,
            "usage: chaos_agent produce URL QUEUE COUNT THREADS PAYLOAD [JOB_TYPE]\n"
            "       chaos_agent work URL QUEUE CONCURRENCY MAX_ATTEMPTS\n"
            "       chaos_agent publish URL QUEUE\n"
            "       chaos_agent both URL QUEUE CONCURRENCY MAX_ATTEMPTS BACKLOG PAYLOAD...\n");
    exit(2);
}

long agent_number(const char *text, long min, long max, const char *what) {
    char *end = NULL;
    long value;
    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
        char message[160];
        snprintf(message, sizeof message, "%s must be a whole number from %ld to %ld, not \"%s\"",
                 what, min, max, text);
        agent_usage_error(message);
    }
    return value;
}

int64_t agent_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

void agent_line(const char *format, ...) {
    va_list args;
    flockfile(stdout);
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
    funlockfile(stdout);
}

long agent_publish_timeout_ms(void) {
    const char *timeout = getenv("QUEUEY_CHAOS_PUBLISH_TIMEOUT_MS");
    return timeout == NULL ? AGENT_PUBLISH_TIMEOUT_MS
                           : agent_number(timeout, 1, 600000, "QUEUEY_CHAOS_PUBLISH_TIMEOUT_MS");
}

int agent_enqueue(qy_producer *producer, const char *job_type, const char *queue,
                  const char *payload, int64_t *took_ms) {
    qy_envelope *env = NULL;
    qy_error *err = NULL;
    int64_t start, took;
    int ok;
    if (qy_envelope_new(job_type, queue, payload, strlen(payload), &env, &err) != QY_OK)
        agent_fail("qy_envelope_new", err);
    start = agent_now_ms();
    ok = qy_producer_enqueue(producer, env, &err) == QY_OK;
    took = agent_now_ms() - start;
    if (ok)
        agent_line("enqueued %s %lld", qy_envelope_job_id(env), (long long)took);
    else
        agent_line("failed %s %lld %s %s", qy_envelope_job_id(env), (long long)took,
                   qy_status_name(qy_error_status(err)), qy_error_message(err));
    qy_error_free(err);
    qy_envelope_free(env);
    if (took_ms != NULL) *took_ms = took;
    return ok;
}

void agent_tally_add(struct agent_tally *tally, int ok, int64_t took_ms) {
    if (ok)
        ++tally->ok;
    else
        ++tally->failed;
    if (took_ms > tally->max_ms) tally->max_ms = took_ms;
}

void agent_print_produced(const struct agent_tally *tally) {
    agent_line("produced ok=%ld failed=%ld max_ms=%lld timeout_ms=%ld", tally->ok, tally->failed,
               (long long)tally->max_ms, agent_publish_timeout_ms());
}

void agent_block_signals(void) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
}

/* What the producer and worker threads of mode both share, guarded by shared_lock. */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static long stop_requests = 0, runs_finished = 0;

/* Adds add to *value under shared_lock; returns the sum. */
static long add_shared(long *value, long add) {
    long sum;
    pthread_mutex_lock(&shared_lock);
    sum = *value += add;
    pthread_mutex_unlock(&shared_lock);
    return sum;
}

void agent_stop_producing(void) { add_shared(&stop_requests, 1); }
int agent_producing_stopped(void) { return add_shared(&stop_requests, 0) != 0; }
void agent_count_run(void) { add_shared(&runs_finished, 1); }
long agent_runs_finished(void) { return add_shared(&runs_finished, 0); }

static void log_to_stderr(qy_log_level level, const char *message, void *user_data) {
    fprintf(stderr, "%s log %d: %s\n", (const char *)user_data, (int)level, message);
}

/* Adds the URLs after the first of a comma-separated list to opts; returns the first (a
   copy the caller frees). */
static char *add_other_urls(qy_client_options *opts, const char *urls) {
    char *first = strdup(urls), *rest = strchr(first, ',');
    qy_error *err = NULL;
    if (rest != NULL) *rest++ = '\0'; /* first ends at the first comma */
    while (rest != NULL) {
        char *url = rest;
        rest = strchr(url, ',');
        if (rest != NULL) *rest++ = '\0';
        if (qy_client_options_add_url(opts, url, &err) != QY_OK)
            agent_fail("qy_client_options_add_url", err);
    }
    return first;
}

qy_client *agent_connect(const char *url, const char *name, const char *queue) {
    qy_error *err = NULL;
    qy_client_options *opts = NULL;
    qy_client *client = NULL;
    qy_queue_config *config = NULL;
    char *first_url;
    const char *heartbeat = getenv("QUEUEY_CHAOS_HEARTBEAT_S");
    const char *queue_type = getenv("QUEUEY_CHAOS_QUEUE_TYPE");

    if (qy_client_options_new(&opts, &err) != QY_OK ||
        qy_client_options_set_connection_name(opts, name, &err) != QY_OK ||
        qy_client_options_set_log(opts, log_to_stderr, (void *)name, NULL, &err) != QY_OK ||
        qy_client_options_set_publish_timeout_ms(opts, (uint32_t)agent_publish_timeout_ms(),
                                                 &err) != QY_OK ||
        qy_client_options_set_connect_timeout_ms(opts, 5000, &err) != QY_OK ||
        qy_client_options_set_reconnect(opts, -1, 200, 2.0, 2000, 1, &err) != QY_OK)
        agent_fail("client options", err);
    if (heartbeat != NULL &&
        qy_client_options_set_heartbeat(
            opts, (uint16_t)agent_number(heartbeat, 1, 600, "QUEUEY_CHAOS_HEARTBEAT_S"), &err) !=
            QY_OK)
        agent_fail("qy_client_options_set_heartbeat", err);
    if (queue_type != NULL && strcmp(queue_type, "quorum") != 0 &&
        strcmp(queue_type, "classic") != 0)
        agent_usage_error("QUEUEY_CHAOS_QUEUE_TYPE must be quorum or classic");
    first_url = add_other_urls(opts, url);
    if (qy_client_new(first_url, opts, &client, &err) != QY_OK) agent_fail("qy_client_new", err);
    free(first_url);
    qy_client_options_free(opts);

    if (qy_queue_config_new(queue, &config, &err) != QY_OK ||
        (queue_type != NULL && strcmp(queue_type, "quorum") == 0 &&
         qy_queue_config_set_type(config, QY_QUEUE_QUORUM, &err) != QY_OK) ||
        qy_client_declare(client, config, &err) != QY_OK)
        agent_fail("declaring the queue", err);
    qy_queue_config_free(config);
    return client;
}

int main(int argc, char **argv) {
    if (argc < 2) agent_usage_error("a mode is needed");
    if (strcmp(argv[1], "produce") == 0) return agent_produce(argc - 2, argv + 2);
    if (strcmp(argv[1], "work") == 0) return agent_work(argc - 2, argv + 2);
    if (strcmp(argv[1], "publish") == 0) return agent_publish(argc - 2, argv + 2);
    if (strcmp(argv[1], "both") == 0) return agent_both(argc - 2, argv + 2);
    agent_usage_error("unknown mode");
    return 2;
}
