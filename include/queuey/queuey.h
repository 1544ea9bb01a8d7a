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
    /** Memory could not be allocated. */
    QY_ERR_NO_MEMORY = -2,
    /** A fault inside queuey that should never happen; please report it. */
    QY_ERR_INTERNAL = -3,
    /** The bytes are not one well-formed JSON document in UTF-8 (syntax error, invalid
        UTF-8, empty input, data after the document). */
    QY_ERR_BAD_JSON = -10,
    /** Well-formed JSON that is not a valid envelope: not an object, a required field
        missing, a field duplicated, of the wrong type or out of range. */
    QY_ERR_BAD_ENVELOPE = -11
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
QY_API qy_status qy_envelope_new(const char *job_type, const char *queue,
                                 const char *payload_json, size_t payload_len,
                                 qy_envelope **out, qy_error **err);

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
QY_API qy_status qy_envelope_deferred(const qy_envelope *env, uint8_t priority,
                                      qy_envelope **out, qy_error **err);

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

#ifdef __cplusplus
}
#endif

#endif /* QUEUEY_QUEUEY_H */
