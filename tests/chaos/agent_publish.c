/*
 * chaos_agent publish URL QUEUE
 *
 * A producer driven line by line on stdin, for scenarios that time a fault against
 * single calls:
 *   enqueue COUNT BYTES   COUNT enqueues one after another, each waiting for its
 *                         confirm, with a payload of BYTES bytes ({"pad":"xx..."})
 * Prints "ready timeout_ms=<publish timeout>" once connected, per call the lines of
 * `produce` (enqueued <job_id> <ms> | failed <job_id> <ms> <status> <message>), and
 * "done" after each command. QUEUEY_CHAOS_PUBLISH_TIMEOUT_MS sets the publish timeout.
 */
#define _POSIX_C_SOURCE 200809L

#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {"pad":"xx...x"} of exactly bytes bytes (at least the empty pad's 10). */
static char *padded_payload(long bytes) {
    static const char head[] = "{\"pad\":\"", tail[] = "\"}";
    const long fixed = (long)(sizeof head + sizeof tail - 2);
    long pad = bytes > fixed ? bytes - fixed : 0;
    char *payload = malloc((size_t)(fixed + pad + 1));
    if (payload == NULL) {
        fprintf(stderr, "chaos_agent: out of memory for a payload of %ld bytes\n", bytes);
        exit(3);
    }
    memcpy(payload, head, sizeof head - 1);
    memset(payload + sizeof head - 1, 'x', (size_t)pad);
    memcpy(payload + sizeof head - 1 + pad, tail, sizeof tail);
    return payload;
}

int agent_publish(int argc, char **argv) {
    qy_client *client;
    qy_producer *producer = NULL;
    qy_error *err = NULL;
    char line[128];

    if (argc != 2) agent_usage_error("publish takes URL QUEUE");
    client = agent_connect(argv[0], "chaos_agent publish", argv[1]);
    if (qy_producer_new(client, &producer, &err) != QY_OK) agent_fail("qy_producer_new", err);
    agent_line("ready timeout_ms=%ld", agent_publish_timeout_ms());

    while (fgets(line, sizeof line, stdin) != NULL) {
        char count_text[32], bytes_text[32];
        long count, bytes, i;
        char *payload;
        if (sscanf(line, "enqueue %31s %31s", count_text, bytes_text) != 2)
            agent_usage_error("publish reads lines of: enqueue COUNT BYTES");
        count = agent_number(count_text, 1, 1000000, "COUNT");
        bytes = agent_number(bytes_text, 0, 256L << 20, "BYTES");
        payload = padded_payload(bytes);
        for (i = 0; i < count; ++i) agent_enqueue(producer, AGENT_JOB_TYPE, argv[1], payload, NULL);
        free(payload);
        agent_line("done");
    }
    qy_producer_free(producer);
    qy_client_free(client);
    return 0;
}
