/*
 * c_rates: the C reference of the binding benchmarks (bench/bindings/run), over the
 * public C API only. The contract every language's rate program follows:
 *
 *   c_rates enqueue URL QUEUE N   declare QUEUE (defaults), enqueue N "noop" jobs with
 *                                 payload {"n": i} one at a time, each confirmed;
 *                                 prints `rate enqueue JOBS_PER_S`
 *   c_rates drain URL QUEUE N     declare QUEUE, preload N "noop" jobs (untimed, batch
 *                                 enqueue), then time a worker with concurrency 1 and a
 *                                 no-op handler from qy_worker_run() until it returns
 *                                 (the N-th job's handler asks it to stop, so it returns
 *                                 once that job is acked); prints `rate drain JOBS_PER_S`
 *
 * Timed enqueues include making each envelope, as a binding's enqueue call does.
 * On failure: a `c_rates: ...` line on stderr and exit status 1 (2 for bad usage).
 */
#define _POSIX_C_SOURCE 200112L

#include <queuey/queuey.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PRELOAD_BATCH 1000

static const char usage[] = "usage: c_rates enqueue|drain URL QUEUE N\n";

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Exits with a message naming what failed unless status is QY_OK. err is read here, by
 * address: the order in which a call's arguments are evaluated is unspecified.
 */
static void check(qy_status status, qy_error **err, const char *doing) {
    if (status == QY_OK) return;
    fprintf(stderr, "c_rates: %s: %s: %s\n", doing, qy_status_name(status), qy_error_message(*err));
    qy_error_free(*err);
    exit(1);
}

/* A new "noop" envelope for queue with payload {"n": i}. */
static qy_envelope *noop_job(const char *queue, size_t i) {
    char payload[48];
    qy_envelope *env = NULL;
    qy_error *err = NULL;
    const int len = snprintf(payload, sizeof payload, "{\"n\": %lu}", (unsigned long)i);
    check(qy_envelope_new("noop", queue, payload, (size_t)len, &env, &err), &err,
          "creating an envelope");
    return env;
}

static qy_client *connect_and_declare(const char *url, const char *queue) {
    qy_client *client = NULL;
    qy_queue_config *config = NULL;
    qy_error *err = NULL;
    check(qy_client_new(url, NULL, &client, &err), &err, "connecting");
    check(qy_queue_config_new(queue, &config, &err), &err, "configuring the queue");
    check(qy_client_declare(client, config, &err), &err, "declaring the queue");
    qy_queue_config_free(config);
    return client;
}

static qy_producer *new_producer(qy_client *client) {
    qy_producer *producer = NULL;
    qy_error *err = NULL;
    check(qy_producer_new(client, &producer, &err), &err, "creating a producer");
    return producer;
}

static double enqueue(qy_client *client, const char *queue, size_t n) {
    qy_producer *producer = new_producer(client);
    const double start = now_seconds();
    size_t i;
    for (i = 0; i < n; ++i) {
        qy_envelope *env = noop_job(queue, i);
        qy_error *err = NULL;
        check(qy_producer_enqueue(producer, env, &err), &err, "enqueueing");
        qy_envelope_free(env);
    }
    {
        const double seconds = now_seconds() - start;
        qy_producer_free(producer);
        return seconds;
    }
}

static void preload(qy_client *client, const char *queue, size_t n) {
    qy_producer *producer = new_producer(client);
    qy_envelope *batch[PRELOAD_BATCH];
    size_t first;
    for (first = 0; first < n; first += PRELOAD_BATCH) {
        const size_t size = n - first < PRELOAD_BATCH ? n - first : PRELOAD_BATCH;
        qy_error *err = NULL;
        size_t i;
        for (i = 0; i < size; ++i) batch[i] = noop_job(queue, first + i);
        check(qy_producer_enqueue_batch(producer, (const qy_envelope *const *)batch, size, NULL,
                                        &err),
              &err, "preloading");
        for (i = 0; i < size; ++i) qy_envelope_free(batch[i]);
    }
    qy_producer_free(producer);
}

struct drain_state {
    qy_worker *worker;
    size_t remaining; /* only the worker's one thread touches it (concurrency 1) */
};

static qy_job_result no_op(qy_job *job, void *user_data) {
    struct drain_state *state = user_data;
    (void)job;
    if (--state->remaining == 0) qy_worker_shutdown(state->worker);
    return QY_JOB_SUCCESS;
}

static double drain(qy_client *client, const char *queue, size_t n) {
    struct drain_state state;
    qy_error *err = NULL;
    const char *queues[1];
    double start, seconds;
    uint64_t acked;
    queues[0] = queue;
    preload(client, queue, n);
    state.remaining = n;
    check(qy_worker_new(client, queues, 1, &state.worker, &err), &err, "creating a worker");
    check(qy_worker_set_concurrency(state.worker, 1, &err), &err, "setting the concurrency");
    check(qy_worker_register(state.worker, "noop", no_op, &state, NULL, NULL, &err), &err,
          "registering the handler");
    start = now_seconds();
    check(qy_worker_run(state.worker, &err), &err, "running the worker");
    seconds = now_seconds() - start;
    acked = qy_worker_counter(state.worker, QY_COUNTER_SUCCEEDED);
    qy_worker_free(state.worker);
    if (acked != n) {
        fprintf(stderr, "c_rates: the worker acked %lu jobs, expected %lu\n", (unsigned long)acked,
                (unsigned long)n);
        exit(1);
    }
    return seconds;
}

int main(int argc, char **argv) {
    char *end = NULL;
    unsigned long n;
    int is_enqueue;
    qy_client *client;
    double seconds;
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc != 5 || (strcmp(argv[1], "enqueue") != 0 && strcmp(argv[1], "drain") != 0)) {
        fprintf(stderr, "c_rates: expected a workload, URL, queue and count\n%s", usage);
        return 2;
    }
    n = strtoul(argv[4], &end, 10);
    if (argv[4][0] == '\0' || argv[4][0] == '-' || *end != '\0' || n == 0) {
        fprintf(stderr, "c_rates: N must be a positive number, not '%s'\n%s", argv[4], usage);
        return 2;
    }
    is_enqueue = strcmp(argv[1], "enqueue") == 0;
    client = connect_and_declare(argv[2], argv[3]);
    seconds = is_enqueue ? enqueue(client, argv[3], n) : drain(client, argv[3], n);
    qy_client_free(client);
    printf("rate %s %.1f\n", argv[1], (double)n / seconds);
    return 0;
}
