/*
 * chaos_agent: the producer and worker processes of the chaos suite (test_chaos.py),
 * written against the public C API only. Shared parts; one file per mode.
 */
#ifndef QUEUEY_CHAOS_AGENT_H
#define QUEUEY_CHAOS_AGENT_H

#include <queuey/queuey.h>

#include <stdint.h>

/* The suite's job type: what the producers enqueue unless told otherwise. */
#define AGENT_JOB_TYPE "chaos.job"

/* The publish timeout of every agent client unless $QUEUEY_CHAOS_PUBLISH_TIMEOUT_MS says
   otherwise: the bound the harness holds each call to. */
#define AGENT_PUBLISH_TIMEOUT_MS 10000

/* The publish timeout agent_connect() sets. */
long agent_publish_timeout_ms(void);

/* Prints what failed and why to stderr and exits with status 3. */
void agent_fail(const char *what, qy_error *err);

/* Prints "chaos_agent: message" to stderr and exits with status 2 (bad arguments). */
void agent_usage_error(const char *message);

/* A client on url (or the comma-separated URLs of a cluster's nodes, tried in turn),
   named name, logging to stderr, with agent_publish_timeout_ms(), a
   5 s connect timeout and reconnects capped at 2 s apart (the suite waits for
   recoveries), the heartbeat of $QUEUEY_CHAOS_HEARTBEAT_S when set (else queuey's
   default), and queue declared: defaults (a quorum queue with
   $QUEUEY_CHAOS_QUEUE_TYPE=quorum), retries and deferrals through 1 s hold queues. */
qy_client *agent_connect(const char *url, const char *name, const char *queue);

/* A number argument in [min, max]; a bad one is a usage error naming what. */
long agent_number(const char *text, long min, long max, const char *what);

/* Milliseconds on the monotonic clock. */
int64_t agent_now_ms(void);

/* Prints one line to stdout and flushes it: the harness reads the lines as they come,
   and a process killed with SIGKILL must not lose what it printed. */
void agent_line(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* One enqueue of a job of job_type with payload, waiting for its confirm. Prints
   "enqueued <job_id> <ms>" or "failed <job_id> <ms> <status> <message>"; returns 1 when
   it succeeded and stores the call's milliseconds in *took_ms unless it is NULL. */
int agent_enqueue(qy_producer *producer, const char *job_type, const char *queue,
                  const char *payload, int64_t *took_ms);

/* What a producer did: calls that succeeded and failed, and the slowest. */
struct agent_tally {
    long ok, failed;
    int64_t max_ms;
};

/* Adds one call to tally (not thread-safe: the caller locks). */
void agent_tally_add(struct agent_tally *tally, int ok, int64_t took_ms);

/* Prints the last line of a producer:
   "produced ok=<n> failed=<n> max_ms=<ms> timeout_ms=<publish timeout>". */
void agent_print_produced(const struct agent_tally *tally);

/* Blocks SIGTERM, SIGINT and SIGUSR1 in the calling thread; called before any thread
   starts, so that every thread has them blocked and only agent_run_worker's waiter takes
   them: SIGTERM and SIGINT shut the worker down, SIGUSR1 only stops enqueueing. */
void agent_block_signals(void);

/* Asks the enqueue loop of mode both to stop; whether that was asked. Thread-safe. */
void agent_stop_producing(void);
int agent_producing_stopped(void);

/* Counts one finished handler run, whatever its outcome; how many there were.
   Thread-safe. */
void agent_count_run(void);
long agent_runs_finished(void);

/* Runs a worker on queue (see agent_work.c) until SIGTERM or SIGINT, prints its counters
   and frees it; agent_block_signals() must have run first. Returns the exit status. */
int agent_run_worker(qy_client *client, const char *queue, long concurrency, long max_attempts);

int agent_produce(int argc, char **argv);
int agent_publish(int argc, char **argv);
int agent_work(int argc, char **argv);
int agent_both(int argc, char **argv);

#endif
