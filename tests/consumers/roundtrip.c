/*
 * roundtrip.c: a program that uses queuey the way another project would, built by the
 * CMake project in cmake/ (against an installed queuey) and the Meson project in meson/
 * (with queuey as a subproject). consumers_test.sh builds and runs both.
 *
 *   roundtrip URL QUEUE COUNT
 *
 * Declares QUEUE (a fresh queue), enqueues COUNT jobs numbered 0 .. COUNT-1, then runs a
 * worker until it has handled COUNT jobs. Exits 0 only if the header and the library
 * agree on the version, QUEUE held COUNT jobs before the worker ran and none after, and
 * the worker ran each job exactly once. SIGTERM (a time limit) stops the worker, so that
 * the program still says which jobs never ran.
 */
#include <queuey/queuey.h>

#include <stdio.h>
#include <stdlib.h>

#define MAX_JOBS 100

struct tally {
    qy_worker *worker;
    unsigned count, handled, runs[MAX_JOBS];
};

/* The worker's only thread (concurrency 1) calls it, so the tally needs no lock. */
static qy_job_result count_run(qy_job *job, void *user_data) {
    struct tally *t = user_data;
    unsigned n = MAX_JOBS;
    if (sscanf(qy_envelope_payload(qy_job_envelope(job), NULL), "{\"n\":%u}", &n) == 1 &&
        n < t->count)
        t->runs[n]++;
    if (++t->handled == t->count) qy_worker_shutdown(t->worker);
    return QY_JOB_SUCCESS;
}

/* 0 when status is QY_OK; else prints the error, frees it and returns 1. */
static int failed(const char *what, qy_status status, qy_error **err) {
    if (status == QY_OK) return 0;
    fprintf(stderr, "roundtrip: %s: %s: %s\n", what, qy_status_name(status),
            qy_error_message(*err));
    qy_error_free(*err);
    *err = NULL;
    return 1;
}

static int enqueue(qy_client *client, const char *queue, unsigned count, qy_error **err) {
    qy_producer *producer = NULL;
    unsigned n;
    int bad = failed("producer", qy_producer_new(client, &producer, err), err);
    for (n = 0; n < count && !bad; n++) {
        char payload[32];
        int len = snprintf(payload, sizeof payload, "{\"n\":%u}", n);
        qy_envelope *env = NULL;
        bad = failed("envelope",
                     qy_envelope_new("count_run", queue, payload, (size_t)len, &env, err), err) ||
              failed("enqueue", qy_producer_enqueue(producer, env, err), err);
        qy_envelope_free(env);
    }
    qy_producer_free(producer);
    return bad;
}

static int expect_ready(qy_client *client, const char *queue, uint64_t expected, qy_error **err) {
    uint64_t ready = 0;
    if (failed("queue counts", qy_client_queue_counts(client, queue, &ready, NULL, err), err))
        return 1;
    if (ready == expected) return 0;
    fprintf(stderr, "roundtrip: %s holds %llu jobs, expected %llu\n", queue,
            (unsigned long long)ready, (unsigned long long)expected);
    return 1;
}

int main(int argc, char **argv) {
    struct tally t = {NULL, 0, 0, {0}};
    qy_client *client = NULL;
    qy_queue_config *config = NULL;
    qy_error *err = NULL;
    const char *queue = argc > 2 ? argv[2] : NULL;
    unsigned n, wrong = 0;
    int status = 1;

    if (argc != 4 || (t.count = (unsigned)atoi(argv[3])) == 0 || t.count > MAX_JOBS) {
        fprintf(stderr, "usage: roundtrip URL QUEUE COUNT (COUNT 1 to %d)\n", MAX_JOBS);
        return 2;
    }
    if (qy_version_number() != QY_VERSION_NUMBER) {
        fprintf(stderr, "roundtrip: header %s, library %s\n", QY_VERSION_STRING,
                qy_version_string());
        return 1;
    }
    if (failed("connect", qy_client_new(argv[1], NULL, &client, &err), &err) ||
        failed("queue", qy_queue_config_new(queue, &config, &err), &err) ||
        failed("declare", qy_client_declare(client, config, &err), &err) ||
        expect_ready(client, queue, 0, &err) || enqueue(client, queue, t.count, &err) ||
        expect_ready(client, queue, t.count, &err) ||
        failed("worker", qy_worker_new(client, &queue, 1, &t.worker, &err), &err) ||
        failed("worker", qy_worker_set_concurrency(t.worker, 1, &err), &err) ||
        failed("signals", qy_worker_shutdown_on_signals(t.worker, &err), &err) ||
        failed("register",
               qy_worker_register(t.worker, "count_run", count_run, &t, NULL, NULL, &err), &err) ||
        failed("run", qy_worker_run(t.worker, &err), &err))
        goto done;

    for (n = 0; n < t.count; n++) {
        if (t.runs[n] == 1) continue;
        fprintf(stderr, "roundtrip: job %u ran %u times\n", n, t.runs[n]);
        wrong++;
    }
    if (wrong == 0 && t.handled == t.count &&
        qy_worker_counter(t.worker, QY_COUNTER_SUCCEEDED) == t.count &&
        !expect_ready(client, queue, 0, &err)) {
        printf("roundtrip: queuey %s ran %u jobs of %s once each\n", qy_version_string(), t.count,
               queue);
        status = 0;
    } else {
        fprintf(stderr, "roundtrip: %u of %u jobs handled, %u wrong\n", t.handled, t.count, wrong);
    }

done:
    qy_worker_free(t.worker);
    qy_queue_config_free(config);
    qy_client_free(client);
    return status;
}
