/*
 * chaos_agent both URL QUEUE CONCURRENCY MAX_ATTEMPTS BACKLOG PAYLOAD...
 *
 * One client that produces and works on QUEUE at once, as many services do: a worker as
 * in mode work (agent_work.c) and, on the same client, one thread that enqueues jobs of
 * type "chaos.job" one at a time, each waiting for its confirm, with the PAYLOADs in
 * turn, until SIGUSR1 (or the worker's SIGTERM or SIGINT). It keeps about BACKLOG jobs
 * waiting: it pauses while its successful enqueues outnumber the worker's finished
 * handler runs by BACKLOG. Prints the lines of both modes: the worker's, the producer's
 * "enqueued" and "failed" lines as they come and its "produced" line once it has stopped.
 */
#define _POSIX_C_SOURCE 200809L

#include "agent.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

struct production {
    qy_producer *producer;
    const char *queue;
    char **payloads;
    long payload_count;
    long backlog;
};

static void pause_10ms(void) {
    struct timespec left = {0, 10000000L};
    while (nanosleep(&left, &left) != 0) {}
}

static void *enqueue_until_stopped(void *arg) {
    const struct production *p = arg;
    struct agent_tally tally = {0, 0, 0};
    long next;
    for (next = 0; !agent_producing_stopped();) {
        int64_t took;
        int ok;
        if (tally.ok - agent_runs_finished() >= p->backlog) {
            pause_10ms();
            continue;
        }
        ok = agent_enqueue(p->producer, AGENT_JOB_TYPE, p->queue,
                           p->payloads[next++ % p->payload_count], &took);
        agent_tally_add(&tally, ok, took);
    }
    agent_print_produced(&tally);
    return NULL;
}

int agent_both(int argc, char **argv) {
    struct production p;
    qy_client *client;
    qy_error *err = NULL;
    pthread_t producing;
    long concurrency, max_attempts;
    int status;

    if (argc < 6)
        agent_usage_error("both takes URL QUEUE CONCURRENCY MAX_ATTEMPTS BACKLOG PAYLOAD...");
    concurrency = agent_number(argv[2], 0, 1024, "CONCURRENCY");
    max_attempts = agent_number(argv[3], 1, 100, "MAX_ATTEMPTS");
    p.queue = argv[1];
    p.backlog = agent_number(argv[4], 1, 10000000, "BACKLOG");
    p.payloads = argv + 5;
    p.payload_count = argc - 5;

    agent_block_signals();
    client = agent_connect(argv[0], "chaos_agent both", p.queue);
    if (qy_producer_new(client, &p.producer, &err) != QY_OK) agent_fail("qy_producer_new", err);
    if (pthread_create(&producing, NULL, enqueue_until_stopped, &p) != 0) {
        fprintf(stderr, "chaos_agent: pthread_create failed\n");
        return 3;
    }
    status = agent_run_worker(client, p.queue, concurrency, max_attempts);
    agent_stop_producing(); /* already asked, unless the worker could not start */
    pthread_join(producing, NULL);
    qy_producer_free(p.producer);
    qy_client_free(client);
    return status;
}
