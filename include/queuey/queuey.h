/*
 * queuey.h: the public C API of queuey, a job queue on RabbitMQ.
 *
 * This header is the whole contract of libqueuey. It is C99, has no inline functions,
 * no function-like macros and no types of the libraries queuey uses.
 *
 * Conventions (they hold for every declaration below unless its comment says otherwise):
 *
 * - Errors. A fallible call returns a qy_status: QY_OK (0) on success, a negative value
 *   on failure. Its last parameter is an optional `qy_error **err`: when it is not NULL
 *   and the call fails, *err receives an error object that the caller frees with
 *   qy_error_free(); on success *err is set to NULL. Status codes are API and never
 *   change meaning; error messages are for people and may change between releases.
 * - Ownership. A handle returned through an `out` parameter belongs to the caller, who
 *   frees it with the matching qy_<object>_free(). A `const char *` result is borrowed
 *   and lives as long as the handle it came from. A `char *` handed out is freed with
 *   qy_string_free(). Every _free function accepts NULL and then does nothing. The
 *   caller never frees anything with libc free().
 * - NULL. A NULL handle or a NULL out pointer passed to a fallible call fails with
 *   QY_ERR_INVALID_ARGUMENT; a getter given a NULL handle returns NULL or 0. No call
 *   crashes on NULL and no C++ exception crosses this API.
 * - Threads. Any function may be called from any thread. One handle must not be used
 *   from two threads at the same time; distinct handles are independent.
 * - Strings passed in are NUL-terminated UTF-8 unless a length is given with them.
 * - Callbacks. A function that registers a callback also takes its `void *user_data` and
 *   a qy_destroy_fn `destroy` (may be NULL). destroy(user_data) is called exactly once
 *   (never for a NULL user_data): when the call succeeded, once queuey no longer needs
 *   user_data (each function says when); when the call failed, before it returns. So a
 *   caller hands user_data over with the call and never frees it itself, whatever the
 *   status. Each callback's documentation says on which thread it runs.
 */
#ifndef QUEUEY_QUEUEY_H
#define QUEUEY_QUEUEY_H

#include <stddef.h>
#include <stdint.h>

#include "queuey/version.h"

#if defined(__GNUC__) || defined(__clang__)
#define QY_API __attribute__((visibility("default")))
#else
#define QY_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* Status codes and errors                                                            */
/* ---------------------------------------------------------------------------------- */

/**
 * The result of a fallible call. Values are explicit and append-only: a value never
 * changes meaning and is never reused.
 * @since 0.1.0
 */
typedef enum qy_status {
    /** Success. */
    QY_OK = 0,
    /** A caller error: a NULL handle or out pointer, or a value the call does not take. */
    QY_ERR_INVALID_ARGUMENT = -1,
    /** Memory, or another resource of the system such as a thread, could not be
        allocated. */
    QY_ERR_NO_MEMORY = -2,
    /** A fault inside queuey that should never happen; please report it. */
    QY_ERR_INTERNAL = -3,
    /** The bytes are not one well-formed JSON document in UTF-8 (syntax error, invalid
        UTF-8, empty input, data after the document). */
    QY_ERR_BAD_JSON = -10,
    /** Well-formed JSON that is not a valid envelope: not an object, a required field
        missing, a field duplicated, of the wrong type or out of range. */
    QY_ERR_BAD_ENVELOPE = -11,
    /** The broker cannot be reached, or the connection was lost. Retryable. A publish
        whose confirm was lost with the connection may or may not have been accepted. */
    QY_ERR_CONNECTION = -20,
    /** No answer in time. A publish that timed out after it was sent may or may not
        have been accepted (one never sent gets QY_ERR_NOT_SENT). */
    QY_ERR_TIMEOUT = -21,
    /** The broker returned a mandatory publish: no queue of that name exists. */
    QY_ERR_UNROUTABLE = -22,
    /** The broker refused a publish (basic.nack). */
    QY_ERR_NACKED = -23,
    /** A queue already exists with other arguments (PRECONDITION_FAILED); the error
        names the queue and the argument. */
    QY_ERR_PRECONDITION_FAILED = -24,
    /** Another error reported by the broker. */
    QY_ERR_BROKER = -25,
    /** The client, consumer or worker was closed. */
    QY_ERR_CLOSED = -26,
    /** Asked for something this build cannot do, such as amqps:// without TLS. */
    QY_ERR_UNSUPPORTED = -27,
    /** The broker refused the user name or password. */
    QY_ERR_AUTH = -28,
    /** A settle of a delivery received before a reconnect: it was not sent (the broker
        redelivers the job). */
    QY_ERR_STALE_DELIVERY = -29,
    /** The delivery was already settled. */
    QY_ERR_ALREADY_SETTLED = -30,
    /** A publish that the publish timeout ended before it was written to the broker
        (the connection was down and reconnecting, or the broker blocked publishing):
        the job is certainly not in the queue, and publishing it again makes no
        duplicate. A publish that was sent but not confirmed in time gets QY_ERR_TIMEOUT
        instead (it may or may not be in the queue). @since 0.2.0 */
    QY_ERR_NOT_SENT = -31,
    /** No such queue (the broker's 404 NOT_FOUND); the error names it. @since 0.2.0 */
    QY_ERR_NOT_FOUND = -32
} qy_status;

/**
 * The name of a status as it is spelled in this header ("QY_OK", "QY_ERR_BAD_JSON"),
 * or "QY_UNKNOWN_STATUS" for a value this version does not know. Static storage.
 * @since 0.1.0
 */
QY_API const char *qy_status_name(qy_status status);

/**
 * Details of a failed call. Created by the library, freed by the caller with
 * qy_error_free().
 * @since 0.1.0
 */
typedef struct qy_error qy_error;

/** The status of the failed call; QY_ERR_INVALID_ARGUMENT for a NULL error. @since 0.1.0 */
QY_API qy_status qy_error_status(const qy_error *err);

/**
 * A message for people that names what is wrong, for example
 * `attempt: -1 is negative, expected an unsigned 32-bit integer`. Borrowed from err.
 * Never contains a password. "" for a NULL error.
 * @since 0.1.0
 */
QY_API const char *qy_error_message(const qy_error *err);

/**
 * The envelope field the error is about ("attempt", "payload", ...), "body" when it is
 * about the input as a whole, or NULL when the error is not about an input field.
 * Borrowed from err.
 * @since 0.1.0
 */
QY_API const char *qy_error_field(const qy_error *err);

/** Frees an error. NULL is a no-op. @since 0.1.0 */
QY_API void qy_error_free(qy_error *err);

/** Frees a string that queuey handed out as `char *`. NULL is a no-op. @since 0.1.0 */
QY_API void qy_string_free(char *str);

/* ---------------------------------------------------------------------------------- */
/* Versions                                                                           */
/* ---------------------------------------------------------------------------------- */

/** QY_VERSION_NUMBER of the library that is loaded at run time. @since 0.1.0 */
QY_API uint32_t qy_version_number(void);

/** QY_VERSION_STRING of the library that is loaded at run time. Static storage. @since 0.1.0 */
QY_API const char *qy_version_string(void);

/* ---------------------------------------------------------------------------------- */
/* Envelopes                                                                          */
/* ---------------------------------------------------------------------------------- */

/**
 * An envelope: one job as it travels on a queue. It is what a message body holds, as
 * compact JSON with the fields job_id, job_type, queue, attempt, enqueued_at_ms,
 * deferrals, priority, the optional correlation_id, and payload, in that order.
 * An envelope is a value: the transitions below return new envelopes.
 * @since 0.1.0
 */
typedef struct qy_envelope qy_envelope;

/**
 * Creates the envelope of a new job: a fresh random (version 4) job id, attempt 1,
 * enqueued now (Unix epoch milliseconds), no deferrals, priority 0, no correlation id.
 *
 * job_type: what workers route on; non-empty UTF-8 without NUL characters.
 * queue: the broker queue the job goes to; non-empty UTF-8 without NUL characters.
 * payload_json, payload_len: the job itself, any one JSON value; it is stored in compact
 * form with its key order and the digits of its numbers unchanged.
 *
 * On success *out is the caller's, freed with qy_envelope_free().
 * Errors: QY_ERR_INVALID_ARGUMENT (a NULL or invalid argument; the error names it),
 * QY_ERR_BAD_JSON (the payload is not one JSON value; field "payload").
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_new(const char *job_type, const char *queue, const char *payload_json,
                                 size_t payload_len, qy_envelope **out, qy_error **err);

/**
 * Decodes a message body. Accepts bodies without deferrals, priority or correlation_id
 * (they default to 0, 0 and absent) and ignores fields it does not know. Rejects, with
 * an error that names the field and the reason: input that is not one JSON object in
 * UTF-8 (QY_ERR_BAD_JSON), a missing, duplicated or mistyped field, a job_id that is not
 * a hyphenated UUID, a negative, fractional or out-of-range number, and a NUL character
 * in job_type, queue or correlation_id (QY_ERR_BAD_ENVELOPE).
 *
 * On success *out is the caller's, freed with qy_envelope_free().
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_from_bytes(const void *data, size_t len, qy_envelope **out,
                                        qy_error **err);

/**
 * Encodes an envelope as its message body: compact UTF-8 JSON. *out receives a
 * NUL-terminated buffer that the caller frees with qy_string_free(); *out_len its length
 * without the terminator.
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_to_bytes(const qy_envelope *env, char **out, size_t *out_len,
                                      qy_error **err);

/**
 * The envelope of the next attempt, as a retry publishes it: attempt + 1 (it stays at
 * its maximum instead of wrapping), priority 0, everything else unchanged.
 * On success *out is the caller's, freed with qy_envelope_free().
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_next_attempt(const qy_envelope *env, qy_envelope **out,
                                          qy_error **err);

/**
 * The envelope of a deferral: deferrals + 1 (it stays at its maximum instead of
 * wrapping), priority set to `priority` (the queue's maximum), everything else,
 * attempt included, unchanged.
 * On success *out is the caller's, freed with qy_envelope_free().
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_deferred(const qy_envelope *env, uint8_t priority, qy_envelope **out,
                                      qy_error **err);

/**
 * Sets the caller-owned correlation id, which queuey carries but never interprets, or
 * removes it when correlation_id is NULL. UTF-8 without NUL characters.
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_set_correlation_id(qy_envelope *env, const char *correlation_id,
                                                qy_error **err);

/** Frees an envelope. NULL is a no-op. @since 0.1.0 */
QY_API void qy_envelope_free(qy_envelope *env);

/** The job id, a lowercase hyphenated UUID. Borrowed. @since 0.1.0 */
QY_API const char *qy_envelope_job_id(const qy_envelope *env);

/** The job type. Borrowed. @since 0.1.0 */
QY_API const char *qy_envelope_job_type(const qy_envelope *env);

/** The queue the envelope was published to. Borrowed. @since 0.1.0 */
QY_API const char *qy_envelope_queue(const qy_envelope *env);

/** The 1-based attempt counter. @since 0.1.0 */
QY_API uint32_t qy_envelope_attempt(const qy_envelope *env);

/** When the job was first enqueued, Unix epoch milliseconds. @since 0.1.0 */
QY_API uint64_t qy_envelope_enqueued_at_ms(const qy_envelope *env);

/** How often the job was deferred. @since 0.1.0 */
QY_API uint32_t qy_envelope_deferrals(const qy_envelope *env);

/** The broker message priority; 0 is normal work. @since 0.1.0 */
QY_API uint8_t qy_envelope_priority(const qy_envelope *env);

/**
 * The payload as compact JSON text. Borrowed; NUL-terminated, and its length without
 * the terminator is stored in *len when len is not NULL.
 * @since 0.1.0
 */
QY_API const char *qy_envelope_payload(const qy_envelope *env, size_t *len);

/** The correlation id, or NULL when the envelope has none. Borrowed. @since 0.1.0 */
QY_API const char *qy_envelope_correlation_id(const qy_envelope *env);

/**
 * Milliseconds since the job was first enqueued, 0 if that lies in the future. Neither
 * a retry nor a deferral resets it.
 * @since 0.1.0
 */
QY_API uint64_t qy_envelope_age_ms(const qy_envelope *env);

/* ---------------------------------------------------------------------------------- */
/* AMQP message properties                                                            */
/* ---------------------------------------------------------------------------------- */

/**
 * The AMQP properties and headers that accompany an envelope's body on RabbitMQ:
 * content-type application/json, delivery-mode 2, message-id = job id, type = job type
 * (both cut at a UTF-8 character boundary to at most 255 bytes), priority always set,
 * headers x-attempt and x-deferrals (unsigned 32-bit) and, when the envelope has a
 * correlation id, x-correlation-id (string). Never an expiration.
 * @since 0.1.0
 */
typedef struct qy_properties qy_properties;

/** The AMQP type of a header value. @since 0.1.0 */
typedef enum qy_field_kind {
    /** No such header (index out of range, or a NULL handle). */
    QY_FIELD_NONE = 0,
    /** An unsigned 32-bit integer (AMQP field type 'i'). */
    QY_FIELD_U32 = 1,
    /** A string (AMQP long string, field type 'S'). */
    QY_FIELD_STRING = 2
} qy_field_kind;

/**
 * The properties of an ordinary publish of env.
 * On success *out is the caller's, freed with qy_properties_free().
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_properties(const qy_envelope *env, qy_properties **out,
                                        qy_error **err);

/**
 * The properties of a publish of env to its dead-letter queue: those of
 * qy_envelope_properties() plus the headers x-death-reason = reason (string),
 * x-original-queue = the envelope's queue (string) and x-attempts = its attempt
 * (unsigned 32-bit).
 * On success *out is the caller's, freed with qy_properties_free().
 * @since 0.1.0
 */
QY_API qy_status qy_envelope_dead_letter_properties(const qy_envelope *env, const char *reason,
                                                    qy_properties **out, qy_error **err);

/** Frees properties. NULL is a no-op. @since 0.1.0 */
QY_API void qy_properties_free(qy_properties *props);

/** The content type, "application/json". Borrowed. @since 0.1.0 */
QY_API const char *qy_properties_content_type(const qy_properties *props);

/** The delivery mode, 2 (persistent). @since 0.1.0 */
QY_API uint8_t qy_properties_delivery_mode(const qy_properties *props);

/** The message id: the job id. Borrowed. @since 0.1.0 */
QY_API const char *qy_properties_message_id(const qy_properties *props);

/** The message type: the job type, at most 255 bytes. Borrowed. @since 0.1.0 */
QY_API const char *qy_properties_type(const qy_properties *props);

/** The message priority: the envelope's priority. @since 0.1.0 */
QY_API uint8_t qy_properties_priority(const qy_properties *props);

/** How many headers there are. @since 0.1.0 */
QY_API size_t qy_properties_header_count(const qy_properties *props);

/** The name of header `index` (0-based), or NULL past the end. Borrowed. @since 0.1.0 */
QY_API const char *qy_properties_header_name(const qy_properties *props, size_t index);

/** The type of header `index`, QY_FIELD_NONE past the end. @since 0.1.0 */
QY_API qy_field_kind qy_properties_header_kind(const qy_properties *props, size_t index);

/** The value of header `index` if it is QY_FIELD_U32, else 0. @since 0.1.0 */
QY_API uint32_t qy_properties_header_u32(const qy_properties *props, size_t index);

/** The value of header `index` if it is QY_FIELD_STRING, else NULL. Borrowed. @since 0.1.0 */
QY_API const char *qy_properties_header_string(const qy_properties *props, size_t index);

/* ---------------------------------------------------------------------------------- */
/* Clients: a connection to where jobs live                                           */
/* ---------------------------------------------------------------------------------- */

/**
 * How a client connects. Created with qy_client_options_new(), changed with setters,
 * freed with qy_client_options_free(); qy_client_new() copies what it needs, so the
 * options may be freed right after.
 * @since 0.1.0
 */
typedef struct qy_client_options qy_client_options;

/** New options with the defaults documented on each setter. @since 0.1.0 */
QY_API qy_status qy_client_options_new(qy_client_options **out, qy_error **err);

/** Frees options. NULL is a no-op. @since 0.1.0 */
QY_API void qy_client_options_free(qy_client_options *opts);

/**
 * Adds a broker URL to try, in turn, after the one given to qy_client_new() (the nodes
 * of a cluster). Errors: QY_ERR_INVALID_ARGUMENT for a URL that does not parse (the
 * message never shows its password).
 * @since 0.1.0
 */
QY_API qy_status qy_client_options_add_url(qy_client_options *opts, const char *url,
                                           qy_error **err);

/**
 * The connection name shown in RabbitMQ's management UI. Default "queuey". A client's
 * two connections show as "NAME (publish)" and "NAME (consume)". @since 0.1.0
 */
QY_API qy_status qy_client_options_set_connection_name(qy_client_options *opts, const char *name,
                                                       qy_error **err);

/** The AMQP heartbeat in seconds; 0 turns heartbeats off. Default 30. @since 0.1.0 */
QY_API qy_status qy_client_options_set_heartbeat(qy_client_options *opts, uint16_t seconds,
                                                 qy_error **err);

/** How long a TCP/TLS connect and login may take. Default 10000 ms. @since 0.1.0 */
QY_API qy_status qy_client_options_set_connect_timeout_ms(qy_client_options *opts,
                                                          uint32_t timeout_ms, qy_error **err);

/**
 * How long a publish waits for the broker's confirm (also bounds declares and
 * subscribes). A publish that times out fails with QY_ERR_TIMEOUT: the job may or may
 * not have been accepted. Default 30000 ms; 0 is refused.
 * @since 0.1.0
 */
QY_API qy_status qy_client_options_set_publish_timeout_ms(qy_client_options *opts,
                                                          uint32_t timeout_ms, qy_error **err);

/**
 * For amqps:// URLs: a PEM file with the CA certificates the broker's certificate is
 * verified against. Default: the system's CAs. The peer and its host name are always
 * verified.
 * @since 0.1.0
 */
QY_API qy_status qy_client_options_set_ca_cert_file(qy_client_options *opts, const char *path,
                                                    qy_error **err);

/**
 * How to reconnect after the connection is lost. max_attempts: -1 tries forever, 0
 * never reconnects (every call then fails fast with QY_ERR_CONNECTION), N gives up
 * after N attempts. The first attempt is immediate; attempt n > 1 waits
 * min(max_ms, base_ms * factor^(n-2)), uniformly jittered in [0, that] when jitter is
 * non-zero. Default: -1, 500 ms, 2.0, 5000 ms (30000 before 0.2.0), jitter on: a client
 * is back within 5 s of the broker, plus the connect. The first connect of
 * qy_client_new() is never retried.
 * @since 0.1.0
 */
QY_API qy_status qy_client_options_set_reconnect(qy_client_options *opts, int64_t max_attempts,
                                                 uint32_t base_ms, double factor, uint32_t max_ms,
                                                 int jitter, qy_error **err);

/** How much a log line matters. @since 0.1.0 */
typedef enum qy_log_level {
    QY_LOG_DEBUG = 0,
    QY_LOG_INFO = 1,
    QY_LOG_WARN = 2,
    QY_LOG_ERROR = 3
} qy_log_level;

/** Receives queuey's log lines. @since 0.1.0 */
typedef void (*qy_log_fn)(qy_log_level level, const char *message, void *user_data);

/** Frees the user_data of a callback when queuey no longer needs it. @since 0.1.0 */
typedef void (*qy_destroy_fn)(void *user_data);

/**
 * Routes queuey's log lines (reconnects, settle failures, blocked publishing, failed
 * handlers, dead letters, ...) to fn. Without a call, a client writes its lines of
 * level QY_LOG_INFO and above to stderr, one line each ("queuey: warning: ..."; before
 * 0.2.0 it was silent);
 * with a NULL fn it is silent and starts no thread for logging.
 *
 * Thread: each client made from these options calls fn on a log thread of its own,
 * started by qy_client_new() (which fails with QY_ERR_NO_MEMORY when the system refuses
 * it): one line at a time in the order they were logged, never concurrently with itself
 * and never while queuey holds a lock. queuey's threads (the connection's I/O thread,
 * worker threads, consumers) only queue a line, so a slow fn delays the log, never
 * heartbeats, publishes, acks or jobs. When 10000 lines wait already, further lines are
 * dropped and counted; where they are missing fn gets one QY_LOG_WARN line saying how
 * many. fn must not call back into the client.
 *
 * qy_client_free() delivers the lines still waiting for up to 2 s and drops the rest;
 * once it returns fn is not called again for that client (lines that its workers or
 * consumers log later are dropped), except that a call still running at the end of those
 * 2 s is not interrupted: it finishes on the log thread, which then ends.
 *
 * destroy (may be NULL) is called with user_data once nothing uses fn any more: the
 * options and the clients made from them are freed, or another call replaced fn; it may
 * run on a client's log thread. A NULL fn silences the client (and user_data is
 * destroyed before the call returns). On failure destroy is called before this function
 * returns (see Callbacks at the top).
 * @since 0.1.0
 */
QY_API qy_status qy_client_options_set_log(qy_client_options *opts, qy_log_fn fn, void *user_data,
                                           qy_destroy_fn destroy, qy_error **err);

/**
 * A client: two connections to a broker, shared by the producers, consumers and workers
 * made from it. One publishes and declares; the other, opened by the first consumer or
 * worker, consumes and settles, so that a broker that blocks publishers (a memory or
 * disk alarm) never stops consuming (since 0.2.0). Thread-safe: any function taking a qy_client may
 * be called from many threads at once.
 * @since 0.1.0
 */
typedef struct qy_client qy_client;

/**
 * Connects to url: amqp://user:pass@host:port/vhost, or amqps://... for TLS (refused
 * with QY_ERR_UNSUPPORTED on a build without TLS, never downgraded to plaintext). opts
 * may be NULL for the defaults. The connect is not retried: a broker that cannot be
 * reached fails here with QY_ERR_CONNECTION (QY_ERR_AUTH for a refused login).
 *
 * url "memory://" gives an in-process backend instead: the same producers, consumers
 * and workers without a broker, for tests of handlers and for running without
 * RabbitMQ. Each such client has queues of its own; delays are exact (a zero delay is
 * immediate); what happened to every job can be inspected (qy_client_memory_*): it
 * counts every settle, and keeps the newest 10000 settled envelopes of each kind (acked,
 * retried, deferred, dead-lettered, expired), so that it does not grow for ever.
 *
 * On success *out is the caller's, freed with qy_client_free().
 * @since 0.1.0
 */
QY_API qy_status qy_client_new(const char *url, const qy_client_options *opts, qy_client **out,
                               qy_error **err);

/**
 * Closes the connection and frees the client. Settles that returned QY_OK are sent
 * first, also those of a consumer still open; publishes not yet written fail with
 * QY_ERR_CLOSED ("not sent"). Producers, consumers and deliveries made
 * from it stay valid to free, but their calls then fail with QY_ERR_CLOSED. Waits up to
 * 2 s for the log callback to take the lines still queued (qy_client_options_set_log()).
 * NULL is a no-op.
 * @since 0.1.0
 */
QY_API void qy_client_free(qy_client *client);

/* ---------------------------------------------------------------------------------- */
/* Inspecting the in-memory backend                                                   */
/* ---------------------------------------------------------------------------------- */

/** What qy_client_memory_count() counts. @since 0.1.0 */
typedef enum qy_memory_count {
    /** Jobs waiting in the queue. */
    QY_MEMORY_PENDING = 0,
    /** Jobs delivered and not settled yet. */
    QY_MEMORY_IN_FLIGHT = 1,
    /** Jobs waiting for their delay (delayed enqueues, retries, deferrals). */
    QY_MEMORY_HELD = 2,
    /** Jobs acknowledged so far. */
    QY_MEMORY_ACKED = 3,
    /** Retries published so far. */
    QY_MEMORY_RETRIED = 4,
    /** Deferrals published so far. */
    QY_MEMORY_DEFERRED = 5,
    /** Jobs dead-lettered so far. */
    QY_MEMORY_DEAD_LETTERED = 6
} qy_memory_count;

/**
 * Counts, for queue (NULL: every declared queue, dead-letter queues not included), what
 * `what` names, on a memory:// client; other clients fail with QY_ERR_UNSUPPORTED.
 * @since 0.1.0
 */
QY_API qy_status qy_client_memory_count(qy_client *client, const char *queue, qy_memory_count what,
                                        uint64_t *out, qy_error **err);

/**
 * The index-th job dead-lettered on a memory:// client among the newest 10000 kept (0 is
 * the oldest of those), with its reason:
 * *env is the caller's (qy_envelope_free()), *reason too (qy_string_free()). An index
 * past the end fails with QY_ERR_INVALID_ARGUMENT.
 * @since 0.1.0
 */
QY_API qy_status qy_client_memory_dead_letter(qy_client *client, size_t index, qy_envelope **env,
                                              char **reason, qy_error **err);

/**
 * Waits until nothing is pending, held or in flight on a memory:// client: QY_OK, or
 * QY_ERR_TIMEOUT when timeout_ms passes first.
 * @since 0.1.0
 */
QY_API qy_status qy_client_memory_wait_idle(qy_client *client, uint32_t timeout_ms, qy_error **err);

/* ---------------------------------------------------------------------------------- */
/* Queues                                                                             */
/* ---------------------------------------------------------------------------------- */

/**
 * The configuration of a logical queue q: on RabbitMQ the queues q, q.dead and the
 * hold queues q.deferred.{ttl_ms}. Freed with qy_queue_config_free().
 * @since 0.1.0
 */
typedef struct qy_queue_config qy_queue_config;

/**
 * A configuration with the defaults: durable, max priority 10, no message TTL,
 * prefetch 16, delays rounded up to whole seconds. name: non-empty UTF-8, at most 235
 * bytes (so that its longest hold queue name fits AMQP's 255); a longer one is refused
 * here, before anything is declared.
 * @since 0.1.0
 */
QY_API qy_status qy_queue_config_new(const char *name, qy_queue_config **out, qy_error **err);

/** Frees a configuration. NULL is a no-op. @since 0.1.0 */
QY_API void qy_queue_config_free(qy_queue_config *config);

/** Whether q and its hold queues survive a broker restart (q.dead always does). @since 0.1.0 */
QY_API qy_status qy_queue_config_set_durable(qy_queue_config *config, int durable, qy_error **err);

/** The RabbitMQ queue type of q, q.dead and the hold queues. @since 0.2.0 */
typedef enum qy_queue_type {
    /** One node holds the queue (the default, and what the Rust crates declare). */
    QY_QUEUE_CLASSIC = 0,
    /** Replicated by Raft across a cluster's nodes: a job survives the loss of a node.
        Always durable (a non-durable one fails the declare with QY_ERR_INVALID_ARGUMENT);
        no x-max-priority (RabbitMQ 3.x has no priorities there: a deferred job waits its
        turn; 4.0 lets it overtake part of the backlog); q gets a delivery limit of 20
        with q.dead as its dead-letter target, so that the broker never drops a job.
        docs/broker.md. */
    QY_QUEUE_QUORUM = 1
} qy_queue_type;

/** The queue type; another value fails with QY_ERR_INVALID_ARGUMENT. Default classic. @since
 * 0.2.0 */
QY_API qy_status qy_queue_config_set_type(qy_queue_config *config, qy_queue_type type,
                                          qy_error **err);

/**
 * The queue's x-max-priority, 1 to 255, or 0 for a queue without priorities (deferred
 * jobs then arrive at priority 0). Default 10.
 * @since 0.1.0
 */
QY_API qy_status qy_queue_config_set_max_priority(qy_queue_config *config, uint8_t max_priority,
                                                  qy_error **err);

/** The work queue's x-message-ttl in ms; a negative value removes it. Default none. @since 0.1.0 */
QY_API qy_status qy_queue_config_set_message_ttl_ms(qy_queue_config *config, int64_t ttl_ms,
                                                    qy_error **err);

/** How many unacknowledged deliveries a consumer holds at once, 1 to 65535. Default 16. @since
 * 0.1.0 */
QY_API qy_status qy_queue_config_set_prefetch(qy_queue_config *config, uint16_t prefetch,
                                              qy_error **err);

/**
 * The step that delays are rounded up to (one hold queue per distinct step count);
 * 0 counts as 1 ms. Default 1000 ms. Below a second, a held job can be lost when the
 * broker is slow: a hold queue's lease is only twice its delay (docs/broker.md).
 * @since 0.1.0
 */
QY_API qy_status qy_queue_config_set_delay_granularity_ms(qy_queue_config *config,
                                                          uint32_t granularity_ms, qy_error **err);

/**
 * Declares the queue and its dead-letter queue (idempotent) and remembers the
 * configuration, which delayed publishes, deferrals and consumers of this queue need.
 * Declared again after every reconnect. A queue that exists with other arguments fails
 * with QY_ERR_PRECONDITION_FAILED naming the queue and the argument; the client stays
 * usable.
 * @since 0.1.0
 */
QY_API qy_status qy_client_declare(qy_client *client, const qy_queue_config *config,
                                   qy_error **err);

/* ---------------------------------------------------------------------------------- */
/* Looking into queues; dead letters (what the queuey command uses, docs/cli.md)       */
/* ---------------------------------------------------------------------------------- */

/**
 * What a passive declare tells of any queue by its full name (a work queue q, q.dead, a
 * hold queue q.deferred.N): the messages ready to be delivered and the consumers. AMQP
 * has no count of the delivered and unacknowledged ones. Either out pointer may be NULL.
 * Errors: QY_ERR_NOT_FOUND (no such queue; the client stays usable), QY_ERR_TIMEOUT,
 * QY_ERR_CONNECTION. The memory backend has no hold queues (they are its timer).
 * @since 0.2.0
 */
QY_API qy_status qy_client_queue_counts(qy_client *client, const char *queue_name,
                                        uint64_t *ready, uint32_t *consumers, qy_error **err);

/**
 * Which messages a browse, replay or purge selects: every criterion set must hold, and
 * one with none set selects every message. Freed with qy_message_filter_free().
 * @since 0.2.0
 */
typedef struct qy_message_filter qy_message_filter;

/** An empty filter. On success *out is the caller's. @since 0.2.0 */
QY_API qy_status qy_message_filter_new(qy_message_filter **out, qy_error **err);

/** Frees a filter. NULL is a no-op. @since 0.2.0 */
QY_API void qy_message_filter_free(qy_message_filter *filter);

/** Adds a job id: the filter selects the jobs whose id is any of those added. @since 0.2.0 */
QY_API qy_status qy_message_filter_add_job_id(qy_message_filter *filter, const char *job_id,
                                              qy_error **err);

/** Selects the jobs of this type only. @since 0.2.0 */
QY_API qy_status qy_message_filter_set_job_type(qy_message_filter *filter, const char *job_type,
                                                qy_error **err);

/** Selects the dead letters whose reason contains text. @since 0.2.0 */
QY_API qy_status qy_message_filter_set_reason_contains(qy_message_filter *filter,
                                                       const char *text, qy_error **err);

/**
 * Selects the jobs first enqueued (the envelope's enqueued_at) at least age_ms ago. A body
 * that is not an envelope has no age and is never selected by this criterion.
 * @since 0.2.0
 */
QY_API qy_status qy_message_filter_set_older_than_ms(qy_message_filter *filter, uint64_t age_ms,
                                                     qy_error **err);

/**
 * A message seen by qy_client_browse(), borrowed for the length of the visit call. A dead
 * letter carries its reason and original queue; a body that is not an envelope (a
 * malformed dead letter) has no envelope, and its job id and type are the message's AMQP
 * message-id and type.
 * @since 0.2.0
 */
typedef struct qy_message qy_message;

/** The job id. @since 0.2.0 */
QY_API const char *qy_message_job_id(const qy_message *message);
/** The job type. @since 0.2.0 */
QY_API const char *qy_message_job_type(const qy_message *message);
/** The attempt (a dead letter's x-attempts header, else the envelope's; 0 when neither). @since 0.2.0 */
QY_API uint32_t qy_message_attempt(const qy_message *message);
/** Why it was dead-lettered (x-death-reason); "" when it is no dead letter. @since 0.2.0 */
QY_API const char *qy_message_reason(const qy_message *message);
/** The queue it was dead-lettered from (x-original-queue), else the envelope's queue. @since 0.2.0 */
QY_API const char *qy_message_original_queue(const qy_message *message);
/** 1 when the broker marked it redelivered. @since 0.2.0 */
QY_API int qy_message_redelivered(const qy_message *message);
/** The envelope, or NULL when the body is not one (see qy_message_decode_error()). @since 0.2.0 */
QY_API const qy_envelope *qy_message_envelope(const qy_message *message);
/** Why the body is not an envelope; "" when it is one. @since 0.2.0 */
QY_API const char *qy_message_decode_error(const qy_message *message);
/**
 * Every AMQP header of the message as one JSON object, in the order the message carries
 * them: strings as strings, integers as numbers, RabbitMQ's x-death as an array of
 * objects.
 * @since 0.2.0
 */
QY_API const char *qy_message_headers_json(const qy_message *message);
/** The body as received; *len (may be NULL) is its length. @since 0.2.0 */
QY_API const char *qy_message_body(const qy_message *message, size_t *len);

/** Called by qy_client_browse() for each selected message; return 0 to go on, anything else to stop. @since 0.2.0 */
typedef int (*qy_message_visit_fn)(const struct qy_message *message, void *user_data);

/**
 * Browses the queue named queue_name (any queue: a work queue, q.dead): hands each
 * message that filter (NULL: every one) selects to visit, in delivery order, at most
 * limit of them (0: no limit). Nothing is removed: the messages are taken one at a
 * time (basic.get) on a channel of their own and all go back, in their order, when the
 * browse ends; the broker marks them redelivered. On a work queue that a worker
 * consumes, a browsed job that the worker receives next counts as one lost run (the
 * default budget is 3; on a quorum queue one x-delivery-count), and while the browse
 * lasts the jobs it holds are not delivered: browse a dead-letter queue freely, a busy
 * work queue with a limit. Errors: QY_ERR_NOT_FOUND, QY_ERR_TIMEOUT, QY_ERR_CONNECTION.
 * @since 0.2.0
 */
QY_API qy_status qy_client_browse(qy_client *client, const char *queue_name,
                                  const qy_message_filter *filter, size_t limit,
                                  qy_message_visit_fn visit, void *user_data, qy_error **err);

/**
 * Puts back the dead letters of queue (the work queue's name; its dead letters are in
 * queue.dead) that filter selects (NULL: all): each is published to its original queue
 * (x-original-queue) as attempt 1 with 0 deferrals (keep_attempt 0) or as it is
 * (keep_attempt 1), with the same job id, type, payload, correlation id, priority and
 * enqueue time, without the dead-letter headers and RabbitMQ's x-death, and removed from
 * queue.dead once the broker confirmed the publish: a crash leaves a duplicate, never a
 * loss. *replayed (may be NULL) is how many were. QY_OK when every selected one was;
 * otherwise the others still went, the ones that did not stay in queue.dead, and the
 * status and message are the first failure's (the message says how many stayed): a body
 * that is not an envelope QY_ERR_BAD_ENVELOPE, an original queue that does not exist
 * QY_ERR_UNROUTABLE, and the publish errors of qy_producer_enqueue().
 * @since 0.2.0
 */
QY_API qy_status qy_client_replay_dead_letters(qy_client *client, const char *queue,
                                               const qy_message_filter *filter, int keep_attempt,
                                               uint64_t *replayed, qy_error **err);

/**
 * Removes the dead letters of queue (as above) that filter selects (NULL: all) for good.
 * *purged (may be NULL) is how many were. Errors as qy_client_replay_dead_letters().
 * @since 0.2.0
 */
QY_API qy_status qy_client_purge_dead_letters(qy_client *client, const char *queue,
                                              const qy_message_filter *filter, uint64_t *purged,
                                              qy_error **err);

/* ---------------------------------------------------------------------------------- */
/* Producing                                                                          */
/* ---------------------------------------------------------------------------------- */

/**
 * Puts jobs on queues. Thread-safe. Every publish is mandatory and waits for the
 * broker's confirm: QY_OK means the broker has the job. Freed with qy_producer_free().
 * @since 0.1.0
 */
typedef struct qy_producer qy_producer;

/** A producer on client. On success *out is the caller's. @since 0.1.0 */
QY_API qy_status qy_producer_new(qy_client *client, qy_producer **out, qy_error **err);

/** Frees a producer. NULL is a no-op. @since 0.1.0 */
QY_API void qy_producer_free(qy_producer *producer);

/**
 * Publishes env to its queue. Errors: QY_ERR_UNROUTABLE (no such queue),
 * QY_ERR_NACKED, QY_ERR_TIMEOUT, QY_ERR_CONNECTION, QY_ERR_NOT_SENT, QY_ERR_CLOSED, and
 * QY_ERR_INVALID_ARGUMENT for a body over the broker's max message size (128 MiB unless
 * the broker said lower; the message names the limit; such a body is never written, as
 * it would close the publishing channel under every publish in flight).
 * @since 0.1.0
 */
QY_API qy_status qy_producer_enqueue(qy_producer *producer, const qy_envelope *env, qy_error **err);

/**
 * Publishes env so that it arrives in its queue after delay_ms (rounded up to the
 * queue's granularity), at priority 0. The queue must have been declared by this client.
 * A delay above 2147483647 ms, also after the rounding, fails with
 * QY_ERR_INVALID_ARGUMENT, field "delay".
 * @since 0.1.0
 */
QY_API qy_status qy_producer_enqueue_after(qy_producer *producer, const qy_envelope *env,
                                           uint64_t delay_ms, qy_error **err);

/**
 * Like qy_producer_enqueue_after(), but the job arrives at the queue's max priority,
 * ahead of the backlog.
 * @since 0.1.0
 */
QY_API qy_status qy_producer_defer(qy_producer *producer, const qy_envelope *env, uint64_t delay_ms,
                                   qy_error **err);

/**
 * Publishes count envelopes with many in flight at once and waits for every confirm.
 * On RabbitMQ they go in pieces of about 1 MiB of bodies, at most 16 MiB unconfirmed at
 * a time, all within the publish timeout (docs/broker.md, "A big batch goes in pieces").
 * statuses (count entries, may be NULL) receives each publish's own outcome: a publish
 * the broker returned fails alone. Returns QY_OK when all succeeded, else the status of
 * the first failure (the error says how many failed).
 * @since 0.1.0
 */
QY_API qy_status qy_producer_enqueue_batch(qy_producer *producer, const qy_envelope *const *envs,
                                           size_t count, qy_status *statuses, qy_error **err);

/*
 * Memory kept between calls. On RabbitMQ a thread that publishes keeps memory for its next
 * publish, so that publishing one job after another allocates almost nothing:
 *
 * - each thread that calls qy_producer_enqueue(), _enqueue_after() or _defer() (or, in a
 *   worker, settles with a retry or deferral) keeps its last publish's message: a few
 *   hundred bytes, at most its 64 KiB body (a bigger body is not kept);
 * - each thread that calls qy_producer_enqueue_batch() keeps its last batch's last piece
 *   of at most 1024 messages (docs/broker.md, "A big batch goes in pieces"): at most
 *   2.5 MiB: about 1.3 KiB a job, plus its payload if under 1 KiB (1.9 MiB after a
 *   batch of a thousand 700-byte jobs); none after a batch with a body over 64 KiB;
 * - the process keeps the memory of freed delivery bodies of 64 KiB or more for the next
 *   big delivery: at most 16 MiB in all, after consuming big jobs.
 *
 * A thread that never publishes keeps nothing, and memory:// keeps none of this. What a
 * thread keeps is freed when the thread exits, when it calls qy_release_thread_memory(),
 * or when any thread calls qy_release_cached_memory(), which also frees what the process
 * keeps. Nothing else outlives a call but what handles hold until they are freed. Freed
 * memory goes back to malloc, which keeps it for the process's next allocations; the
 * resident size falls once qy_release_cached_memory() has malloc give it back. A program
 * whose publishing threads come and go needs neither call; one that publishes from many
 * long-lived threads (a Go program, whose calls land on any of its OS threads) may call
 * qy_release_cached_memory() when it goes idle: 64 Go threads that each published a
 * batch of a thousand 700-byte jobs held 182 to 198 MiB more resident, 10 to 19 MiB more
 * after the call (docs/broker.md, "Memory kept per thread").
 */

/**
 * Frees what the calling thread keeps for its next publish (the message and batch piece
 * above); the thread's next publish allocates them again. A message still waiting for its
 * confirm is freed when the confirm arrives. Cheap (no lock another thread holds long);
 * never fails; any thread, any time, also one that never published (then a no-op).
 * @since 0.2.0
 */
QY_API void qy_release_thread_memory(void);

/**
 * Frees what every thread keeps for its next publish (as qy_release_thread_memory() on
 * each) and what the process keeps (the delivery bodies' memory above), then, with glibc,
 * asks malloc to give its free memory back to the system (malloc_trim(0)). A thread
 * publishing meanwhile finishes with what it took and keeps its next publish's again.
 * Never fails; any thread, any time. It takes a lock per publishing thread and malloc's
 * locks for a moment: a call for when the process goes idle, not one per job.
 * @since 0.2.0
 */
QY_API void qy_release_cached_memory(void);

/* ---------------------------------------------------------------------------------- */
/* Consuming                                                                          */
/* ---------------------------------------------------------------------------------- */

/**
 * Receives the jobs of one declared queue with the queue's prefetch. Use it from one
 * thread at a time. Freed with qy_consumer_free(), which returns its unsettled
 * deliveries to the queue.
 * @since 0.1.0
 */
typedef struct qy_consumer qy_consumer;

/** One received job; settle it exactly once, from any thread. @since 0.1.0 */
typedef struct qy_delivery qy_delivery;

/** Subscribes to a queue declared by this client. @since 0.1.0 */
QY_API qy_status qy_consumer_new(qy_client *client, const char *queue, qy_consumer **out,
                                 qy_error **err);

/** Cancels the subscription and frees the consumer. NULL is a no-op. @since 0.1.0 */
QY_API void qy_consumer_free(qy_consumer *consumer);

/**
 * Waits up to timeout_ms for the next job. On QY_OK, *out is a delivery (the caller's,
 * freed with qy_delivery_free()) or NULL when the time ran out. A body that is not a
 * valid envelope never comes out here: it is copied verbatim to the dead-letter queue
 * with x-death-reason "malformed envelope" and acknowledged (rejected without requeue
 * when the copy fails), and logged as a warning through the client's log callback.
 * When the broker cancels the subscription (its queue was deleted, or a classic queue's
 * cluster node went down), the consumer declares the queue again as this client
 * declared it and consumes again, a second after the cancel and then at doubling
 * intervals up to 15 s, logging a warning for each try; meanwhile no job arrives here.
 * @since 0.1.0
 */
QY_API qy_status qy_consumer_next(qy_consumer *consumer, uint32_t timeout_ms, qy_delivery **out,
                                  qy_error **err);

/** The delivered envelope. Borrowed from the delivery. @since 0.1.0 */
QY_API const qy_envelope *qy_delivery_envelope(const qy_delivery *delivery);

/** 1 when the broker delivered this job before (to a consumer that did not settle it). @since 0.1.0
 */
QY_API int qy_delivery_redelivered(const qy_delivery *delivery);

/** Acknowledges: the job is done. @since 0.1.0 */
QY_API qy_status qy_delivery_ack(qy_delivery *delivery, qy_error **err);

/**
 * Publishes next (usually qy_envelope_next_attempt() of the delivered envelope) to
 * arrive after delay_ms, waits for the broker's confirm, and only then acknowledges.
 * If the publish fails, nothing is acknowledged: the job is redelivered, never lost.
 * A delay above 2147483647 ms fails with QY_ERR_INVALID_ARGUMENT, field "delay", before
 * anything is published.
 * @since 0.1.0
 */
QY_API qy_status qy_delivery_retry(qy_delivery *delivery, const qy_envelope *next,
                                   uint64_t delay_ms, qy_error **err);

/** As qy_delivery_retry(), for a deferral (next from qy_envelope_deferred()). @since 0.1.0 */
QY_API qy_status qy_delivery_defer(qy_delivery *delivery, const qy_envelope *next,
                                   uint64_t delay_ms, qy_error **err);

/**
 * Publishes the envelope to the dead-letter queue with headers x-death-reason = reason,
 * x-original-queue and x-attempts, waits for the confirm, then acknowledges.
 * @since 0.1.0
 */
QY_API qy_status qy_delivery_dead_letter(qy_delivery *delivery, const char *reason, qy_error **err);

/**
 * Frees a delivery. One that was not settled goes back to its queue (to be delivered
 * again). NULL is a no-op.
 * @since 0.1.0
 */
QY_API void qy_delivery_free(qy_delivery *delivery);

/* ---------------------------------------------------------------------------------- */
/* Retry policies                                                                     */
/* ---------------------------------------------------------------------------------- */

/**
 * What happens after a job fails with a retryable error. Freed with
 * qy_retry_policy_free(); functions that take one copy it.
 * @since 0.1.0
 */
typedef struct qy_retry_policy qy_retry_policy;

/**
 * A policy of max_attempts attempts in all (the first included: 1 means no retries)
 * with no wait between them. The default policy of a worker is qy_retry_policy_new(1).
 * @since 0.1.0
 */
QY_API qy_status qy_retry_policy_new(uint32_t max_attempts, qy_retry_policy **out, qy_error **err);

/** Frees a policy. NULL is a no-op. @since 0.1.0 */
QY_API void qy_retry_policy_free(qy_retry_policy *policy);

/**
 * Waits delay_ms before each retry. A delay_ms above 2147483647 (the longest wait of a
 * hold queue, about 24.8 days) fails with QY_ERR_INVALID_ARGUMENT, field "delay_ms".
 * @since 0.1.0
 */
QY_API qy_status qy_retry_policy_set_fixed(qy_retry_policy *policy, uint64_t delay_ms,
                                           qy_error **err);

/**
 * Waits min(max_ms, base_ms * factor^(n-1)) after failed attempt n, uniformly jittered
 * in [0, that] when jitter is non-zero (full jitter). A non-finite or non-positive
 * factor counts as 1.0. Base 1000, factor 2, no jitter: 1, 2, 4, 8 s. A base_ms or
 * max_ms above 2147483647 (the longest wait of a hold queue, about 24.8 days) fails with
 * QY_ERR_INVALID_ARGUMENT, field "base_ms" or "max_ms".
 * @since 0.1.0
 */
QY_API qy_status qy_retry_policy_set_exponential(qy_retry_policy *policy, uint64_t base_ms,
                                                 double factor, uint64_t max_ms, int jitter,
                                                 qy_error **err);

/** The queue's own retry policy (NULL removes it); see the precedence at qy_worker. @since 0.1.0 */
QY_API qy_status qy_queue_config_set_retry_policy(qy_queue_config *config,
                                                  const qy_retry_policy *policy, qy_error **err);

/**
 * The lost-run budget of the queue's jobs: how often a job may be lost (redelivered after
 * its worker went away mid-run) before a worker dead-letters it. It takes precedence
 * over the worker's (qy_worker_set_max_lost_runs). Unset by default; 0 fails with
 * QY_ERR_INVALID_ARGUMENT.
 * @since 0.2.0
 */
QY_API qy_status qy_queue_config_set_max_lost_runs(qy_queue_config *config, uint32_t max_lost_runs,
                                                   qy_error **err);

/* ---------------------------------------------------------------------------------- */
/* Workers                                                                            */
/* ---------------------------------------------------------------------------------- */

/**
 * Runs jobs: consumes queues, routes each job on its job type to the handler registered
 * for it, and settles it by the handler's result:
 *
 * - QY_JOB_SUCCESS: acknowledged.
 * - QY_JOB_RETRY: the retry policy decides: published again (attempt + 1) to arrive
 *   after its backoff, or dead-lettered "max attempts ({max}) exhausted after attempt
 *   {attempt}: {error}".
 * - QY_JOB_FATAL: dead-lettered "fatal error: {error}".
 * - QY_JOB_DEFER: published again (deferrals + 1, the queue's max priority, no attempt
 *   spent, no retry policy) to arrive after the delay given with qy_job_set_defer().
 * - QY_JOB_UNDECODABLE: dead-lettered "decode error: {detail}".
 * - a job type without a handler: dead-lettered "no handler for job type `{type}`".
 * - a run longer than the job timeout: a retryable error "job timed out after {limit}".
 *
 * The retry policy is, highest precedence first: the one the handler set for this job
 * (qy_job_set_retry_policy), the worker's per-job-type override, its per-queue
 * override, the policy registered with the handler, the queue's policy, the worker's
 * default (1 attempt).
 *
 * A job that comes back marked redelivered (its worker may have been lost while it ran:
 * a crash, but also a broker restart, a deploy, a network blip) runs again at the same
 * attempt: the worker publishes it again to the back of its queue with its lost-run
 * count + 1 (header x-lost-runs) and acknowledges the redelivered copy. Once a job has
 * been lost max_lost_runs times (qy_worker_set_max_lost_runs,
 * qy_queue_config_set_max_lost_runs; default 3) it is dead-lettered "lost {n} times: the
 * worker was lost while running the job", so a job that kills every worker does not come
 * back forever. Redeliveries that this process caused (its connection or a channel
 * replaced) are not counted at all (docs/worker.md).
 *
 * Delivery is at least once: a handler may see a job twice and must tolerate it.
 * Handlers run on the worker's threads, several at once (the concurrency). Configure
 * and register before qy_worker_run(); the setters fail with QY_ERR_INVALID_ARGUMENT
 * afterwards.
 * @since 0.1.0
 */
typedef struct qy_worker qy_worker;

/** The job a handler runs; valid only during the handler call. @since 0.1.0 */
typedef struct qy_job qy_job;

/** What a handler answers. @since 0.1.0 */
typedef enum qy_job_result {
    QY_JOB_SUCCESS = 0,
    QY_JOB_RETRY = 1,
    QY_JOB_FATAL = 2,
    QY_JOB_DEFER = 3,
    QY_JOB_UNDECODABLE = 4
} qy_job_result;

/** A handler; any other return value counts as a retryable error. @since 0.1.0 */
typedef qy_job_result (*qy_handler_fn)(qy_job *job, void *user_data);

/** Called before a job is dead-lettered, with its envelope and the reason. @since 0.1.0 */
typedef void (*qy_dead_letter_fn)(const qy_envelope *env, const char *reason, void *user_data);

/** The counters of qy_worker_counter(). @since 0.1.0 */
typedef enum qy_counter {
    QY_COUNTER_SUCCEEDED = 0,
    QY_COUNTER_RETRIED = 1,
    QY_COUNTER_DEFERRED = 2,
    QY_COUNTER_DEAD_LETTERED_FATAL = 3,
    QY_COUNTER_DEAD_LETTERED_EXHAUSTED = 4,
    QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE = 5,
    QY_COUNTER_DEAD_LETTERED_UNDECODABLE = 6,
    QY_COUNTER_TIMED_OUT = 7,
    QY_COUNTER_WORKER_LOST = 8,
    QY_COUNTER_SETTLE_FAILURES = 9,
    QY_COUNTER_IN_FLIGHT = 10,
    /** Dead-lettered after max_lost_runs lost runs. @since 0.2.0 */
    QY_COUNTER_DEAD_LETTERED_LOST = 11,
    /** Bodies that were not a valid envelope, copied verbatim to the dead-letter queue
        (x-death-reason "malformed envelope") and acknowledged; each is also logged as a
        warning. Counted by the consumer before any handler could see them. @since 0.2.0 */
    QY_COUNTER_DEAD_LETTERED_MALFORMED = 12,
    /** Bodies that were not a valid envelope and could not be copied to the dead-letter
        queue (it is missing, or the publish failed): rejected without requeue, so they
        are gone for good. Logged as a warning. Not a settle failure: nothing comes back.
        @since 0.2.0 */
    QY_COUNTER_DROPPED_MALFORMED = 13,
    /** Jobs whose settle failed and that the worker keeps unsettled while it tries that
        settle again: a gauge, like QY_COUNTER_IN_FLIGHT. Each holds one of its queue's
        prefetch slots, so a worker whose parked jobs fill the prefetch receives nothing
        until a settle goes through (docs/worker.md, settle failures). @since 0.2.0 */
    QY_COUNTER_PARKED = 14,
    /** Second copies of a schedule's fire that the worker dropped (acknowledged, not run)
        because it had settled that fire within the hour before; each is also logged as a
        warning. Only a network partition between two schedulers or a wall clock stepped
        back sends one (docs/scheduling.md, duplicate fires). @since 0.3.0 */
    QY_COUNTER_DUPLICATE_FIRES = 15
} qy_counter;

/**
 * A worker on client for queue_count queues, each declared with qy_client_declare()
 * before qy_worker_run(). On success *out is the caller's, freed with qy_worker_free().
 * @since 0.1.0
 */
QY_API qy_status qy_worker_new(qy_client *client, const char *const *queues, size_t queue_count,
                               qy_worker **out, qy_error **err);

/** Frees a worker; call it only after qy_worker_run() has returned. NULL is a no-op. @since 0.1.0
 */
QY_API void qy_worker_free(qy_worker *worker);

/** How many jobs run at once, each on a thread of its own; 0 (the default): the sum of
    the queues' prefetch. @since 0.1.0 */
QY_API qy_status qy_worker_set_concurrency(qy_worker *worker, uint32_t concurrency, qy_error **err);

/** A job running longer than timeout_ms counts as a retryable error; 0 (the default):
    no limit. Keep it below RabbitMQ's consumer timeout (30 min). @since 0.1.0 */
QY_API qy_status qy_worker_set_job_timeout_ms(qy_worker *worker, uint32_t timeout_ms,
                                              qy_error **err);

/**
 * How often a job may be lost (redelivered after its worker went away mid-run) before it
 * is dead-lettered, for the queues that set no budget of their own
 * (qy_queue_config_set_max_lost_runs). Default 3; 0 fails with QY_ERR_INVALID_ARGUMENT.
 * @since 0.2.0
 */
QY_API qy_status qy_worker_set_max_lost_runs(qy_worker *worker, uint32_t max_lost_runs,
                                             qy_error **err);

/** The policy when nothing more specific applies. @since 0.1.0 */
QY_API qy_status qy_worker_set_default_retry(qy_worker *worker, const qy_retry_policy *policy,
                                             qy_error **err);

/** An override for one job type. @since 0.1.0 */
QY_API qy_status qy_worker_set_job_type_retry(qy_worker *worker, const char *job_type,
                                              const qy_retry_policy *policy, qy_error **err);

/** An override for one queue. @since 0.1.0 */
QY_API qy_status qy_worker_set_queue_retry(qy_worker *worker, const char *queue,
                                           const qy_retry_policy *policy, qy_error **err);

/**
 * A hook called before each dead-lettering (at least once per dead letter; it cannot stop
 * it), on the thread that settles the job. destroy (may be NULL) frees user_data when
 * the worker is freed or another call replaces the hook; on failure, before this
 * function returns (see Callbacks at the top).
 * @since 0.1.0
 */
QY_API qy_status qy_worker_set_dead_letter_hook(qy_worker *worker, qy_dead_letter_fn hook,
                                                void *user_data, qy_destroy_fn destroy,
                                                qy_error **err);

/**
 * Registers the handler of job_type, with an optional policy (NULL: none) of its own.
 * A second handler for the same job type fails with QY_ERR_INVALID_ARGUMENT. handler
 * runs on the worker's threads. destroy (may be NULL) frees user_data when the worker
 * is freed; on failure (a second handler included), before this function returns (see
 * Callbacks at the top).
 * @since 0.1.0
 */
QY_API qy_status qy_worker_register(qy_worker *worker, const char *job_type, qy_handler_fn handler,
                                    void *user_data, qy_destroy_fn destroy,
                                    const qy_retry_policy *policy, qy_error **err);

/**
 * Runs the worker on the calling thread and its own, until qy_worker_shutdown(). Returns
 * QY_OK after a shutdown, once every job it started is settled; an error when it cannot
 * consume (a queue not declared, the connection closed or given up). A queue deleted
 * under it is consumed again once it is back (qy_consumer_next()). When the system
 * refuses its threads (one per job it runs at once, see qy_worker_set_concurrency(), and
 * one for the job timeout), it fails with QY_ERR_NO_MEMORY and a message that says how
 * many of how many started, after those threads have run what they received and stopped;
 * the jobs no thread took go back to their queues.
 * @since 0.1.0
 */
QY_API qy_status qy_worker_run(qy_worker *worker, qy_error **err);

/**
 * Asks a worker to stop: it cancels its subscriptions, lets the running jobs end and settles them,
 * gives the jobs received and not started (prefetched) back to their queue at no cost
 * (docs/worker.md, shutdown), then qy_worker_run() returns. Idempotent; from any
 * thread, a handler included; before qy_worker_run() too (which then returns at once). NULL is a
 * no-op.
 * @since 0.1.0
 */
QY_API void qy_worker_shutdown(qy_worker *worker);

/**
 * Makes SIGINT and SIGTERM shut the worker down gracefully, as qy_worker_shutdown()
 * does: what the worker received runs and is settled, then qy_worker_run() returns.
 * Installs handlers for both signals (sigaction) that do nothing but an async-signal-
 * safe store; the worker's threads see it within 100 ms. A second signal while the
 * worker shuts down gets the disposition the process had before (by default it ends
 * the process), so a stuck handler can still be interrupted; the previous handlers come
 * back when the last worker that asked for this is freed. Call it before or during
 * qy_worker_run(); calling it again does nothing. What happens to running jobs on
 * SIGTERM and on SIGKILL: docs/worker.md. Errors: QY_ERR_INVALID_ARGUMENT (NULL, or more
 * than 64 such workers at once), QY_ERR_INTERNAL (sigaction failed).
 * @since 0.2.0
 */
QY_API qy_status qy_worker_shutdown_on_signals(qy_worker *worker, qy_error **err);

/** A counter of what the worker did; readable from any thread while it runs. @since 0.1.0 */
QY_API uint64_t qy_worker_counter(const qy_worker *worker, qy_counter counter);

/**
 * The worker's metrics in the Prometheus text exposition format, version 0.0.4, for an
 * HTTP endpoint (Content-Type "text/plain; version=0.0.4; charset=utf-8"):
 * queuey_jobs_total{queue,job_type,outcome}, the handler-duration histogram
 * queuey_job_duration_seconds{queue,job_type} and the counters of qy_worker_counter()
 * (docs/metrics.md lists every name). Before qy_worker_run() every count is 0 and no
 * job series is listed. Thread-safe: from any thread, while qy_worker_run() runs too.
 * *out receives a NUL-terminated buffer that the caller frees with qy_string_free();
 * *out_len its length without the terminator. Errors: QY_ERR_INVALID_ARGUMENT (NULL),
 * QY_ERR_NO_MEMORY.
 * @since 0.2.0
 */
QY_API qy_status qy_worker_metrics_text(const qy_worker *worker, char **out, size_t *out_len,
                                        qy_error **err);

/** The job's envelope. Borrowed, valid during the handler call. @since 0.1.0 */
QY_API const qy_envelope *qy_job_envelope(const qy_job *job);

/**
 * 1 once the job has timed out: it was settled as a retryable error already and the
 * handler's result will be ignored; a long handler should return early.
 * @since 0.1.0
 */
QY_API int qy_job_cancelled(const qy_job *job);

/** The error (QY_JOB_RETRY, QY_JOB_FATAL) or decode problem (QY_JOB_UNDECODABLE) that the
    dead-letter reason and the logs show. @since 0.1.0 */
QY_API qy_status qy_job_set_error(qy_job *job, const char *message, qy_error **err);

/**
 * Notes the exception (or other failure with a type and a trace) that ended this run,
 * for the dead letter: when the job ends dead-lettered by this run's result (QY_JOB_FATAL,
 * QY_JOB_RETRY with its attempts used up, QY_JOB_UNDECODABLE, or a retry whose hold is
 * refused), the dead letter carries the header x-exception (string) = type, a newline,
 * then detail, beside x-death-reason. The value is at most 4096 bytes: a longer one is
 * cut at a UTF-8 character boundary and ends with "\n[truncated]"; bytes that are not
 * UTF-8 become U+FFFD. Nothing is kept beyond this run: a retry's next attempt starts
 * without it, and a run that succeeds, defers or is retried publishes no such header.
 * A second call replaces the first. The C++ wrapper (queuey.hpp) calls it for every
 * exception a handler throws.
 *
 * type: the exception's type name, one non-empty line. detail: its message or trace,
 * NULL for none.
 * Errors: QY_ERR_INVALID_ARGUMENT (a NULL job or type, an empty type, a type with a line
 * break; the error names the parameter), QY_ERR_NO_MEMORY.
 * @since 0.2.0
 */
QY_API qy_status qy_job_set_exception(qy_job *job, const char *type, const char *detail,
                                      qy_error **err);

/**
 * The delay and reason of a QY_JOB_DEFER. A delay_ms above 2147483647 (the longest wait
 * of a hold queue, about 24.8 days) fails with QY_ERR_INVALID_ARGUMENT, field
 * "delay_ms", and sets nothing: the handler can still return another result.
 * @since 0.1.0
 */
QY_API qy_status qy_job_set_defer(qy_job *job, uint64_t delay_ms, const char *reason,
                                  qy_error **err);

/** The retry policy for this job's QY_JOB_RETRY, above every other. @since 0.1.0 */
QY_API qy_status qy_job_set_retry_policy(qy_job *job, const qy_retry_policy *policy,
                                         qy_error **err);

/* ---------------------------------------------------------------------------------- */
/* Schedules (periodic jobs)                                                          */
/* ---------------------------------------------------------------------------------- */

/**
 * A periodic job: a name, what to enqueue (queue, job type, payload) and when: a cron
 * expression read in a time zone, or a fixed interval. Each fire is one job whose id is
 * derived from the name and the fire time (qy_schedule_fire_job_id), so a fire sent twice
 * is recognisable. Validated where it is made: a schedule that exists can fire.
 * Freed with qy_schedule_free(). docs/scheduling.md.
 * @since 0.3.0
 */
typedef struct qy_schedule qy_schedule;

/**
 * A schedule with exactly one of: a five-field cron expression `cron` (minute hour
 * day-of-month month day-of-week; numbers, ranges a-b, steps * / n, lists, month and
 * weekday names; or @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly),
 * fired at its local times in the IANA time zone time_zone ("UTC", "Europe/Berlin"; NULL
 * for UTC) of the system's time zone database; or an interval interval_ms (whole seconds,
 * 1 s to 366 days), fired at the instants that are multiples of it since the Unix epoch,
 * so that every process agrees on them. cron NULL and interval_ms 0 mean "none". A local
 * time that a DST change skips fires at the end of the gap; one it repeats fires once, at
 * its first pass, unless the hour field is a wildcard.
 * The payload is JSON null until qy_schedule_set_payload; missed fires are skipped until
 * qy_schedule_set_missed_fires.
 * name: non-empty UTF-8, at most 200 bytes, unique among the schedules of a cluster.
 * Errors: QY_ERR_INVALID_ARGUMENT naming the field ("name", "queue", "job_type",
 * "cron", "time_zone", "interval") and what is wrong: a cron error names the cron field
 * and its value ("hour field \"24\": 24 is out of range 0-23"), or says that the
 * expression never fires ("0 0 30 2 *"); neither or both of cron and an interval, or a
 * time zone other than UTC with an interval, are refused too.
 * @since 0.3.0
 */
QY_API qy_status qy_schedule_new(const char *name, const char *queue, const char *job_type,
                                 const char *cron, const char *time_zone, uint64_t interval_ms,
                                 qy_schedule **out, qy_error **err);

/** Frees a schedule. NULL is a no-op. @since 0.3.0 */
QY_API void qy_schedule_free(qy_schedule *schedule);

/** The payload of every fire: one JSON value (QY_ERR_BAD_JSON otherwise). @since 0.3.0 */
QY_API qy_status qy_schedule_set_payload(qy_schedule *schedule, const char *payload_json,
                                         qy_error **err);

/** What a scheduler does with fires it comes to late. @since 0.3.0 */
typedef enum qy_missed_fires {
    /** Fires later than the schedule's grace (its interval, at most a minute; a minute for
        cron) are skipped and counted (the default). */
    QY_MISSED_FIRES_SKIP = 0,
    /** The latest at_most (1 to 1000) missed fires are enqueued however late; older ones
        are skipped and counted. */
    QY_MISSED_FIRES_CATCH_UP = 1
} qy_missed_fires;

/**
 * The missed-fire policy. at_most: 0 with QY_MISSED_FIRES_SKIP, 1 to 1000 with
 * QY_MISSED_FIRES_CATCH_UP; anything else fails with QY_ERR_INVALID_ARGUMENT, field
 * "missed_fires", and changes nothing.
 * @since 0.3.0
 */
QY_API qy_status qy_schedule_set_missed_fires(qy_schedule *schedule, qy_missed_fires policy,
                                              uint32_t at_most, qy_error **err);

/**
 * The first fire strictly after after_ms (Unix epoch milliseconds), as Unix epoch
 * milliseconds (always whole seconds) in *out_ms. Schedules work from 1970-01-01 to
 * 9999-01-01: an after_ms outside fails with QY_ERR_INVALID_ARGUMENT, field "after_ms",
 * and QY_ERR_NOT_FOUND says that the next fire would be past the end. Within it every
 * schedule has a next fire (a cron expression that matches some day matches one in every
 * 400 years).
 * @since 0.3.0
 */
QY_API qy_status qy_schedule_next_fire_ms(const qy_schedule *schedule, int64_t after_ms,
                                          int64_t *out_ms, qy_error **err);

/**
 * The job id of the fire at fire_ms (floored to the second; 1970-01-01 to 9999-01-01, as
 * qy_schedule_next_fire_ms), 36 characters and a NUL written to out: UUIDv5 of "name@YYYY-MM-DDTHH:MM:SSZ" in queuey's namespace
 * ef1e1828-dfe8-4381-9764-707fd195a854 (tests/vectors/schedules/fire_ids.tsv).
 * @since 0.3.0
 */
QY_API qy_status qy_schedule_fire_job_id(const qy_schedule *schedule, int64_t fire_ms,
                                         char out[37], qy_error **err);

/* ---------------------------------------------------------------------------------- */
/* Schedulers: one leader for a cluster's schedules                                    */
/* ---------------------------------------------------------------------------------- */

/**
 * What a scheduler runs: its schedules, the configs of the queues they fire into, its
 * group. Created with qy_scheduler_options_new(), freed with qy_scheduler_options_free();
 * qy_scheduler_new() copies it. @since 0.3.0
 */
typedef struct qy_scheduler_options qy_scheduler_options;

/** @since 0.3.0 */
QY_API qy_status qy_scheduler_options_new(qy_scheduler_options **out, qy_error **err);
/** NULL is a no-op. @since 0.3.0 */
QY_API void qy_scheduler_options_free(qy_scheduler_options *opts);
/** Adds a copy of schedule. Names are unique: qy_scheduler_new refuses two of one name.
    @since 0.3.0 */
QY_API qy_status qy_scheduler_options_add_schedule(qy_scheduler_options *opts,
                                                   const qy_schedule *schedule, qy_error **err);
/** Adds the config of a queue schedules fire into: the leader declares it so when it takes
    the lead (a queue without one is declared with qy_queue_config_new's defaults). It must
    match how the queue's workers declare it, as for qy_client_declare. @since 0.3.0 */
QY_API qy_status qy_scheduler_options_add_queue(qy_scheduler_options *opts,
                                                const qy_queue_config *config, qy_error **err);
/** Schedulers of one group elect one leader among them; "" (the default) is the vhost's
    default group. For applications that share a vhost and not their schedules.
    @since 0.3.0 */
QY_API qy_status qy_scheduler_options_set_group(qy_scheduler_options *opts, const char *group,
                                                qy_error **err);

/**
 * A scheduler: a thread with a connection of its own that stands in its group's election
 * on the broker. Exactly one scheduler of a group leads; it enqueues each fire of its
 * schedules once, with a job id derived from the schedule's name and the fire time, and
 * records the fire on the broker, so that the next leader neither repeats nor skips it.
 * When the leader's connection goes (its process killed, the network lost, missed
 * heartbeats) the broker hands the lead to another. docs/scheduling.md.
 * @since 0.3.0
 */
typedef struct qy_scheduler qy_scheduler;

/**
 * Starts a scheduler on the broker at url, connecting as client_opts says (URLs to try,
 * connection name, heartbeat, reconnects, log; NULL: defaults). It returns at once: the
 * connection is made, and made again after a loss, by its thread.
 * Errors: QY_ERR_INVALID_ARGUMENT for a bad URL, no schedule, two schedules of one name
 * (field "name"), a group too long (field "group"); QY_ERR_UNSUPPORTED for memory://.
 * @since 0.3.0
 */
QY_API qy_status qy_scheduler_new(const char *url, const qy_client_options *client_opts,
                                  const qy_scheduler_options *opts, qy_scheduler **out,
                                  qy_error **err);

/** Leaves the election (the next scheduler leads at once) and frees. NULL is a no-op.
    @since 0.3.0 */
QY_API void qy_scheduler_free(qy_scheduler *scheduler);

/** 1 while this scheduler leads, else 0 (also for NULL). @since 0.3.0 */
QY_API int qy_scheduler_leading(const qy_scheduler *scheduler);

/** What qy_scheduler_count counts; every count only grows. @since 0.3.0 */
typedef enum qy_scheduler_counter {
    /** Fires enqueued and confirmed by the broker while this scheduler led. */
    QY_SCHEDULER_FIRES = 0,
    /** Missed fires that their policy skipped. */
    QY_SCHEDULER_SKIPPED = 1,
    /** Fires enqueued later than their grace (QY_MISSED_FIRES_CATCH_UP). */
    QY_SCHEDULER_CAUGHT_UP = 2,
    /** Times this scheduler took the lead. */
    QY_SCHEDULER_LEADS = 3,
    /** Connections lost, or fires the broker refused. */
    QY_SCHEDULER_FAILURES = 4
} qy_scheduler_counter;

/** The count of counter in *out. QY_ERR_INVALID_ARGUMENT (field "counter") for a value
    that is none of the enumerators. @since 0.3.0 */
QY_API qy_status qy_scheduler_count(const qy_scheduler *scheduler, qy_scheduler_counter counter,
                                    uint64_t *out, qy_error **err);

/**
 * What the schedulers of group (NULL or "": the default group) fire, as their newest
 * leader published it when it took the lead, read from the broker with nothing consumed
 * (what `queuey schedule list` shows). *out receives one JSON object, freed with
 * qy_string_free(), *out_len its length:
 *   {"group":"","leader":{"connection":"billing-1","host":"web-3","pid":4242,
 *    "since":"2026-12-08T02:00:00Z"},"schedulers":3,
 *    "schedules":[{"name":"nightly","queue":"reports","job_type":"report.build",
 *    "payload":"{\"full\":true}","cron":"0 2 * * *","time_zone":"UTC","missed":"skip",
 *    "last_fire":"2026-12-08T02:00:00Z","next_fire":"2026-12-09T02:00:00Z"}]}
 * leader is null and schedules empty before any scheduler led; schedulers counts those
 * standing in the election now (0: none runs, and leader is the last one); an interval
 * schedule has "interval_ms" instead of "cron" and "time_zone"; "catch_up" adds
 * "catch_up_at_most"; last_fire is null before the first fire, next_fire null when the
 * schedule fires no more. Errors: QY_ERR_INVALID_ARGUMENT (field "group"), the broker's
 * errors, QY_ERR_BAD_JSON when the published definitions do not read. @since 0.3.0
 */
QY_API qy_status qy_client_list_schedules(qy_client *client, const char *group, char **out,
                                          size_t *out_len, qy_error **err);

#ifdef __cplusplus
}
#endif

#endif /* QUEUEY_QUEUEY_H */
