/* enqueue and work of the cross-implementation contract, over queuey's C API with the
   queue defaults of qy_queue_config_new. */
#include "xlang_commands.h"
#include "xlang_util.h"

#include <queuey/queuey.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Prints "xlang_c: WHAT: STATUS: message" and frees *err when status is not QY_OK. */
static int failed(const char *what, qy_status status, qy_error **err) {
    if (status == QY_OK) return 0;
    fprintf(stderr, "xlang_c: %s: %s: %s\n", what, qy_status_name(status),
            *err != NULL ? qy_error_message(*err) : "");
    qy_error_free(*err);
    *err = NULL;
    return 1;
}

/* Connects and declares queue with the defaults. Returns 0, or 1 after printing. */
static int connect_and_declare(const char *url, const char *queue, qy_client **client) {
    qy_queue_config *config = NULL;
    qy_error *err = NULL;
    int rc = failed("connect", qy_client_new(url, NULL, client, &err), &err) ||
             failed("queue", qy_queue_config_new(queue, &config, &err), &err) ||
             failed("declare", qy_client_declare(*client, config, &err), &err);
    qy_queue_config_free(config);
    return rc;
}

int xlang_enqueue(int argc, char **argv) {
    static const char *const known[] = {"url",      "queue",    "type",           "payload",
                                        "after-ms", "defer-ms", "correlation-id", NULL};
    struct xlang_args args;
    const char *url, *queue, *type, *payload, *correlation_id;
    uint64_t after_ms = 0, defer_ms = 0;
    qy_client *client = NULL;
    qy_producer *producer = NULL;
    qy_envelope *env = NULL;
    qy_error *err = NULL;
    qy_status status;
    int rc = 1;

    if (xlang_parse_args(argc, argv, known, &args) || !(url = xlang_required(&args, "url")) ||
        !(queue = xlang_required(&args, "queue")) || !(type = xlang_required(&args, "type")) ||
        !(payload = xlang_required(&args, "payload")) ||
        xlang_number(&args, "after-ms", 0, &after_ms) ||
        xlang_number(&args, "defer-ms", 0, &defer_ms))
        return 1;
    if (xlang_arg(&args, "after-ms") != NULL && xlang_arg(&args, "defer-ms") != NULL) {
        fprintf(stderr, "xlang_c: --after-ms and --defer-ms exclude each other\n");
        return 1;
    }
    correlation_id = xlang_arg(&args, "correlation-id");
    if (connect_and_declare(url, queue, &client) ||
        failed("producer", qy_producer_new(client, &producer, &err), &err) ||
        failed("envelope", qy_envelope_new(type, queue, payload, strlen(payload), &env, &err),
               &err) ||
        (correlation_id != NULL &&
         failed("correlation id", qy_envelope_set_correlation_id(env, correlation_id, &err), &err)))
        goto done;
    if (xlang_arg(&args, "after-ms") != NULL)
        status = qy_producer_enqueue_after(producer, env, after_ms, &err);
    else if (xlang_arg(&args, "defer-ms") != NULL)
        status = qy_producer_defer(producer, env, defer_ms, &err);
    else
        status = qy_producer_enqueue(producer, env, &err);
    if (failed("enqueue", status, &err)) goto done;
    printf("%s\n", qy_envelope_job_id(env));
    rc = 0;
done:
    qy_envelope_free(env);
    qy_producer_free(producer);
    qy_client_free(client);
    return rc;
}

/* What the handlers share: how many invocations to run, and the watchdog's clock. */
struct progress {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t handled, wanted;
    qy_worker *worker;
};

static void report(struct progress *p, const qy_envelope *env, const char *outcome) {
    size_t payload_len = 0;
    const char *payload = qy_envelope_payload(env, &payload_len);
    const char *type = qy_envelope_job_type(env);
    pthread_mutex_lock(&p->lock);
    printf("{\"impl\":\"c\",\"job_id\":\"%s\",\"job_type\":", qy_envelope_job_id(env));
    xlang_json_string(stdout, type, strlen(type));
    printf(",\"attempt\":%u,\"deferrals\":%u,\"priority\":%u,\"payload\":",
           (unsigned)qy_envelope_attempt(env), (unsigned)qy_envelope_deferrals(env),
           (unsigned)qy_envelope_priority(env));
    fwrite(payload, 1, payload_len, stdout);
    printf(",\"outcome\":\"%s\"}\n", outcome);
    fflush(stdout);
    if (++p->handled == p->wanted) qy_worker_shutdown(p->worker);
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}

/* One handler for every job type of the contract; user_data is the progress. */
static qy_job_result contract_handler(qy_job *job, void *user_data) {
    const qy_envelope *env = qy_job_envelope(job);
    const char *type = qy_envelope_job_type(env);
    qy_job_result result = QY_JOB_SUCCESS;
    const char *outcome = "ok";
    if (strcmp(type, "always-retry") == 0 ||
        (strcmp(type, "retry-once") == 0 && qy_envelope_attempt(env) == 1)) {
        qy_job_set_error(job, "xlang retry", NULL);
        result = QY_JOB_RETRY;
        outcome = "retry";
    } else if (strcmp(type, "fatal") == 0) {
        qy_job_set_error(job, "xlang fatal", NULL);
        result = QY_JOB_FATAL;
        outcome = "fatal";
    } else if (strcmp(type, "defer-once") == 0 && qy_envelope_deferrals(env) == 0) {
        qy_job_set_defer(job, 1000, "xlang defer", NULL);
        result = QY_JOB_DEFER;
        outcome = "defer";
    }
    report(user_data, env, outcome);
    return result;
}

struct watchdog {
    struct progress *progress;
    uint64_t timeout_s;
    int fired;
};

/* Shuts the worker down when the invocations do not come within the timeout. */
static void *watch(void *arg) {
    struct watchdog *w = arg;
    struct progress *p = w->progress;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)w->timeout_s;
    pthread_mutex_lock(&p->lock);
    while (p->handled < p->wanted && !w->fired)
        if (pthread_cond_timedwait(&p->changed, &p->lock, &deadline) != 0) w->fired = 1;
    pthread_mutex_unlock(&p->lock);
    if (w->fired) qy_worker_shutdown(p->worker);
    return NULL;
}

int xlang_work(int argc, char **argv) {
    static const char *const known[] = {"url", "queue", "handled", "timeout-s", NULL};
    static const char *const types[] = {"ok", "retry-once", "always-retry", "fatal", "defer-once"};
    struct xlang_args args;
    const char *url, *queue;
    struct progress progress = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL};
    struct watchdog watchdog = {&progress, 60, 0};
    qy_client *client = NULL;
    qy_retry_policy *retry = NULL;
    qy_worker *worker = NULL;
    qy_error *err = NULL;
    pthread_t watcher;
    int rc = 1;

    if (xlang_parse_args(argc, argv, known, &args) || !(url = xlang_required(&args, "url")) ||
        !(queue = xlang_required(&args, "queue")) || !xlang_required(&args, "handled") ||
        xlang_number(&args, "handled", 0, &progress.wanted) ||
        xlang_number(&args, "timeout-s", 60, &watchdog.timeout_s))
        return 1;
    if (connect_and_declare(url, queue, &client) ||
        failed("policy", qy_retry_policy_new(3, &retry, &err), &err) ||
        failed("policy", qy_retry_policy_set_fixed(retry, 1000, &err), &err) ||
        failed("worker", qy_worker_new(client, &queue, 1, &worker, &err), &err) ||
        failed("retry", qy_worker_set_queue_retry(worker, queue, retry, &err), &err))
        goto done;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (failed(
                "register",
                qy_worker_register(worker, types[i], contract_handler, &progress, NULL, NULL, &err),
                &err))
            goto done;
    progress.worker = worker;
    if (progress.wanted == 0) qy_worker_shutdown(worker);
    if (pthread_create(&watcher, NULL, watch, &watchdog) != 0) {
        fprintf(stderr, "xlang_c: cannot start the watchdog thread\n");
        goto done;
    }
    rc = failed("run", qy_worker_run(worker, &err), &err);
    pthread_mutex_lock(&progress.lock);
    watchdog.fired |= progress.handled < progress.wanted; /* also wakes a waiting watchdog */
    pthread_cond_broadcast(&progress.changed);
    pthread_mutex_unlock(&progress.lock);
    pthread_join(watcher, NULL);
    if (rc == 0 && progress.handled < progress.wanted) {
        fprintf(stderr, "xlang_c: timed out after %llu s with %llu of %llu invocations handled\n",
                (unsigned long long)watchdog.timeout_s, (unsigned long long)progress.handled,
                (unsigned long long)progress.wanted);
        rc = 1;
    }
done:
    qy_worker_free(worker);
    qy_retry_policy_free(retry);
    qy_client_free(client);
    return rc;
}
