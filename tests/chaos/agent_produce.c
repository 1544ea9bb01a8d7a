/*
 * chaos_agent produce URL QUEUE COUNT THREADS PAYLOAD [JOB_TYPE]
 *
 * Enqueues COUNT jobs of JOB_TYPE (default "chaos.job") with payload PAYLOAD (a JSON
 * value: it tells the worker what to do, see agent_work.c) from THREADS threads sharing
 * one producer, each enqueue waiting for its confirm. Prints, per job:
 *   enqueued <job_id> <ms>                     the broker confirmed it after <ms>
 *   failed <job_id> <ms> <status> <message>    the call failed after <ms>
 * and at the end:
 *   produced ok=<n> failed=<n> max_ms=<ms> timeout_ms=<publish timeout>
 */
#define _POSIX_C_SOURCE 200809L

#include "agent.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct production {
    qy_producer *producer;
    const char *queue;
    const char *payload;
    const char *job_type;
    long count;
    long next; /* the next job to enqueue; taken under lock */
    struct agent_tally tally;
    pthread_mutex_t lock;
};

static int take_job(struct production *p) {
    int more;
    pthread_mutex_lock(&p->lock);
    more = p->next < p->count;
    if (more) ++p->next;
    pthread_mutex_unlock(&p->lock);
    return more;
}

static void record(struct production *p, int ok, int64_t ms) {
    pthread_mutex_lock(&p->lock);
    agent_tally_add(&p->tally, ok, ms);
    pthread_mutex_unlock(&p->lock);
}

static void *enqueue_jobs(void *arg) {
    struct production *p = arg;
    while (take_job(p)) {
        int64_t took;
        const int ok = agent_enqueue(p->producer, p->job_type, p->queue, p->payload, &took);
        record(p, ok, took);
    }
    return NULL;
}

int agent_produce(int argc, char **argv) {
    struct production p;
    pthread_t threads[64];
    qy_client *client;
    qy_error *err = NULL;
    long thread_count, i;

    if (argc != 5 && argc != 6)
        agent_usage_error("produce takes URL QUEUE COUNT THREADS PAYLOAD [JOB_TYPE]");
    memset(&p, 0, sizeof p);
    p.queue = argv[1];
    p.count = agent_number(argv[2], 1, 10000000, "COUNT");
    thread_count = agent_number(argv[3], 1, 64, "THREADS");
    p.payload = argv[4];
    p.job_type = argc == 6 ? argv[5] : AGENT_JOB_TYPE;
    pthread_mutex_init(&p.lock, NULL);

    client = agent_connect(argv[0], "chaos_agent produce", p.queue);
    if (qy_producer_new(client, &p.producer, &err) != QY_OK) agent_fail("qy_producer_new", err);
    for (i = 0; i < thread_count; ++i)
        if (pthread_create(&threads[i], NULL, enqueue_jobs, &p) != 0) {
            fprintf(stderr, "chaos_agent: pthread_create failed\n");
            return 3;
        }
    for (i = 0; i < thread_count; ++i) pthread_join(threads[i], NULL);

    agent_print_produced(&p.tally);
    qy_producer_free(p.producer);
    qy_client_free(client);
    pthread_mutex_destroy(&p.lock);
    return 0;
}
