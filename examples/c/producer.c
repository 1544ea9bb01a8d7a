/*
 * producer.c: puts COUNT send_email jobs (default 10) on the queue example.emails.
 *
 *   producer [URL [COUNT]]      URL defaults to $QUEUEY_URL, e.g. amqp://guest:guest@localhost/
 *
 * Run worker.c to take them off again.
 */
#include <queuey/queuey.h>

#include <stdio.h>
#include <stdlib.h>

/* 0 when status is QY_OK; else prints the error, frees it and returns 1. */
static int failed(const char *what, qy_status status, qy_error **err) {
    if (status == QY_OK) return 0;
    fprintf(stderr, "producer: %s: %s: %s\n", what, qy_status_name(status), qy_error_message(*err));
    qy_error_free(*err);
    *err = NULL;
    return 1;
}

int main(int argc, char **argv) {
    const char *url = argc > 1 ? argv[1] : getenv("QUEUEY_URL");
    int count = argc > 2 ? atoi(argv[2]) : 10, i, status = 1;
    qy_client *client = NULL;
    qy_queue_config *config = NULL;
    qy_producer *producer = NULL;
    qy_error *err = NULL;

    if (url == NULL) {
        fprintf(stderr, "usage: producer [URL [COUNT]] (or set QUEUEY_URL)\n");
        return 2;
    }
    if (failed("connect", qy_client_new(url, NULL, &client, &err), &err) ||
        failed("queue", qy_queue_config_new("example.emails", &config, &err), &err) ||
        failed("declare", qy_client_declare(client, config, &err), &err) ||
        failed("producer", qy_producer_new(client, &producer, &err), &err))
        goto done;

    for (i = 0; i < count; i++) {
        char payload[128];
        int len = snprintf(payload, sizeof payload,
                           "{\"to\":\"user%d@example.com\",\"subject\":\"hello #%d\"}", i, i);
        qy_envelope *env = NULL;
        if (failed(
                "envelope",
                qy_envelope_new("send_email", "example.emails", payload, (size_t)len, &env, &err),
                &err))
            goto done;
        if (failed("enqueue", qy_producer_enqueue(producer, env, &err), &err)) {
            qy_envelope_free(env);
            goto done;
        }
        printf("enqueued %s %s\n", qy_envelope_job_id(env), payload);
        qy_envelope_free(env);
    }
    status = 0;

done: /* every _free accepts NULL */
    qy_producer_free(producer);
    qy_queue_config_free(config);
    qy_client_free(client);
    return status;
}
