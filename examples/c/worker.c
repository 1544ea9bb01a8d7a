/*
 * worker.c: runs the send_email jobs of the queue example.emails until COUNT of them
 * (default 10) have succeeded. The first attempt of every third job fails, as if the
 * mail server were busy; queuey retries it after a backoff (3 attempts at most).
 *
 *   worker [URL [COUNT]]        URL defaults to $QUEUEY_URL
 */
#include <queuey/queuey.h>

#include <stdio.h>
#include <stdlib.h>

struct progress {
    qy_worker *worker;
    unsigned seen, done, wanted;
};

/* Runs on the worker's thread (one: concurrency 1), so progress needs no lock. */
static qy_job_result send_email(qy_job *job, void *user_data) {
    struct progress *p = user_data;
    const qy_envelope *env = qy_job_envelope(job);
    if (qy_envelope_attempt(env) == 1 && p->seen++ % 3 == 2) {
        qy_job_set_error(job, "smtp: 421 mail server busy", NULL);
        return QY_JOB_RETRY;
    }
    printf("sent %s (attempt %u): %s\n", qy_envelope_job_id(env), qy_envelope_attempt(env),
           qy_envelope_payload(env, NULL));
    if (++p->done == p->wanted) qy_worker_shutdown(p->worker); /* run() returns */
    return QY_JOB_SUCCESS;
}

static int failed(const char *what, qy_status status, qy_error **err) {
    if (status == QY_OK) return 0;
    fprintf(stderr, "worker: %s: %s: %s\n", what, qy_status_name(status), qy_error_message(*err));
    qy_error_free(*err);
    *err = NULL;
    return 1;
}

int main(int argc, char **argv) {
    const char *url = argc > 1 ? argv[1] : getenv("QUEUEY_URL");
    const char *queues[] = {"example.emails"};
    struct progress progress = {NULL, 0, 0, 10};
    qy_client *client = NULL;
    qy_queue_config *config = NULL;
    qy_retry_policy *retry = NULL;
    qy_worker *w = NULL;
    qy_error *err = NULL;
    int status = 1;

    if (url == NULL) {
        fprintf(stderr, "usage: worker [URL [COUNT]] (or set QUEUEY_URL)\n");
        return 2;
    }
    if (argc > 2) progress.wanted = (unsigned)atoi(argv[2]);
    if (failed("connect", qy_client_new(url, NULL, &client, &err), &err) ||
        failed("queue", qy_queue_config_new("example.emails", &config, &err), &err) ||
        failed("declare", qy_client_declare(client, config, &err), &err) ||
        failed("policy", qy_retry_policy_new(3, &retry, &err), &err) ||
        failed("policy", qy_retry_policy_set_exponential(retry, 1000, 2.0, 10000, 1, &err), &err) ||
        failed("worker", qy_worker_new(client, queues, 1, &w, &err), &err) ||
        failed("worker", qy_worker_set_concurrency(w, 1, &err), &err) ||
        /* Ctrl-C or SIGTERM (a deploy): finish and settle what was received, then return. */
        failed("signals", qy_worker_shutdown_on_signals(w, &err), &err) ||
        failed("register",
               qy_worker_register(w, "send_email", send_email, &progress, NULL, retry, &err), &err))
        goto done;

    progress.worker = w;
    printf("waiting for %u send_email jobs on example.emails\n", progress.wanted);
    if (failed("run", qy_worker_run(w, &err), &err)) goto done;
    printf("done: %u sent, %llu retries\n", progress.done,
           (unsigned long long)qy_worker_counter(w, QY_COUNTER_RETRIED));
    status = 0;

done:
    qy_worker_free(w);
    qy_retry_policy_free(retry);
    qy_queue_config_free(config);
    qy_client_free(client);
    return status;
}
