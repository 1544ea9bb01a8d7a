/*
 * chaos_agent: the producer and worker processes of the chaos suite (test_chaos.py),
 * written against the public C API only. Shared parts; one file per mode.
 */
#ifndef QUEUEY_CHAOS_AGENT_H
#define QUEUEY_CHAOS_AGENT_H

#include <queuey/queuey.h>

#include <stdint.h>

/* Every job of the suite has this type. */
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

/* A client on url, named name, logging to stderr, with agent_publish_timeout_ms(), a
   5 s connect timeout and reconnects capped at 2 s apart (the suite waits for
   recoveries), the heartbeat of $QUEUEY_CHAOS_HEARTBEAT_S when set (else queuey's
   default), and queue declared: defaults, retries and deferrals through 1 s hold
   queues. */
qy_client *agent_connect(const char *url, const char *name, const char *queue);

/* A number argument in [min, max]; a bad one is a usage error naming what. */
long agent_number(const char *text, long min, long max, const char *what);

/* Milliseconds on the monotonic clock. */
int64_t agent_now_ms(void);

/* Prints one line to stdout and flushes it: the harness reads the lines as they come,
   and a process killed with SIGKILL must not lose what it printed. */
void agent_line(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* One enqueue of a "chaos.job" with payload, waiting for its confirm. Prints
   "enqueued <job_id> <ms>" or "failed <job_id> <ms> <status> <message>"; returns 1 when
   it succeeded and stores the call's milliseconds in *took_ms unless it is NULL. */
int agent_enqueue(qy_producer *producer, const char *queue, const char *payload, int64_t *took_ms);

int agent_produce(int argc, char **argv);
int agent_publish(int argc, char **argv);
int agent_work(int argc, char **argv);

#endif
