/* xlang_c dead and get: take N messages off Q.dead (dead) or Q itself (get) with plain
   rabbitmq-c basic.get (no queuey code), so that what any implementation published is
   read the same way. Prints one line per message: {"body": ..., "headers": {...},
   "header_kinds": {...}, "priority": P, "properties": {...}}; header_kinds gives each
   header's AMQP field type letter, properties the other basic properties that are set. */
#define _POSIX_C_SOURCE 200809L /* strdup, nanosleep */

#include "xlang_commands.h"
#include "xlang_util.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int amqp_failed(const char *what, amqp_rpc_reply_t reply) {
    if (reply.reply_type == AMQP_RESPONSE_NORMAL) return 0;
    fprintf(stderr, "xlang_c: get: %s failed (reply type %d, library error %s)\n", what,
            (int)reply.reply_type, amqp_error_string2(reply.library_error));
    return 1;
}

static void print_value(const amqp_field_value_t *v) {
    switch (v->kind) {
        case AMQP_FIELD_KIND_UTF8:
        case AMQP_FIELD_KIND_BYTES:
            xlang_json_string(stdout, v->value.bytes.bytes, v->value.bytes.len);
            break;
        case AMQP_FIELD_KIND_I8: printf("%d", v->value.i8); break;
        case AMQP_FIELD_KIND_U8: printf("%u", v->value.u8); break;
        case AMQP_FIELD_KIND_I16: printf("%d", v->value.i16); break;
        case AMQP_FIELD_KIND_U16: printf("%u", v->value.u16); break;
        case AMQP_FIELD_KIND_I32: printf("%ld", (long)v->value.i32); break;
        case AMQP_FIELD_KIND_U32: printf("%lu", (unsigned long)v->value.u32); break;
        case AMQP_FIELD_KIND_I64: printf("%lld", (long long)v->value.i64); break;
        case AMQP_FIELD_KIND_U64: printf("%llu", (unsigned long long)v->value.u64); break;
        default: printf("\"(field kind %c)\"", (char)v->kind); break;
    }
}

/* "name": "value" (null when absent), after sep. */
static void print_property(const char *name, int present, const amqp_bytes_t *value,
                           const char *sep) {
    printf("%s\"%s\":", sep, name);
    if (present)
        xlang_json_string(stdout, value->bytes, value->len);
    else
        printf("null");
}

static void print_message(const amqp_message_t *msg) {
    const amqp_basic_properties_t *p = &msg->properties;
    const int has_headers = (p->_flags & AMQP_BASIC_HEADERS_FLAG) != 0;
    printf("{\"body\":");
    fwrite(msg->body.bytes, 1, msg->body.len, stdout);
    for (int pass = 0; pass < 2; ++pass) {
        printf(pass == 0 ? ",\"headers\":{" : ",\"header_kinds\":{");
        for (int i = 0; has_headers && i < p->headers.num_entries; ++i) {
            const amqp_table_entry_t *e = &p->headers.entries[i];
            printf(i > 0 ? "," : "");
            xlang_json_string(stdout, e->key.bytes, e->key.len);
            printf(":");
            if (pass == 0)
                print_value(&e->value);
            else
                printf("\"%c\"", (char)e->value.kind);
        }
        printf("}");
    }
    if (p->_flags & AMQP_BASIC_PRIORITY_FLAG)
        printf(",\"priority\":%u", p->priority);
    else
        printf(",\"priority\":null");
    printf(",\"properties\":{");
    print_property("content_type", p->_flags & AMQP_BASIC_CONTENT_TYPE_FLAG, &p->content_type, "");
    print_property("message_id", p->_flags & AMQP_BASIC_MESSAGE_ID_FLAG, &p->message_id, ",");
    print_property("type", p->_flags & AMQP_BASIC_TYPE_FLAG, &p->type, ",");
    print_property("expiration", p->_flags & AMQP_BASIC_EXPIRATION_FLAG, &p->expiration, ",");
    printf(",\"delivery_mode\":");
    printf((p->_flags & AMQP_BASIC_DELIVERY_MODE_FLAG) ? "%u}}\n" : "null}}\n", p->delivery_mode);
    fflush(stdout);
}

/* Gets one message from queue, acknowledged unless keep (then the connection's close
   hands it back, marked redelivered, as a crashed consumer would); 1 got one, 0 the
   queue was empty, -1 an error. */
static int get_one(amqp_connection_state_t conn, const char *queue, int keep) {
    amqp_message_t msg;
    amqp_rpc_reply_t reply = amqp_basic_get(conn, 1, amqp_cstring_bytes(queue), 0);
    int got = -1;
    if (amqp_failed("basic.get", reply)) return -1;
    if (reply.reply.id == AMQP_BASIC_GET_EMPTY_METHOD) {
        amqp_maybe_release_buffers(conn);
        return 0;
    }
    const uint64_t tag = ((amqp_basic_get_ok_t *)reply.reply.decoded)->delivery_tag;
    if (!amqp_failed("reading the message", amqp_read_message(conn, 1, &msg, 0))) {
        print_message(&msg);
        amqp_destroy_message(&msg);
        got = keep || amqp_basic_ack(conn, 1, tag, 0) == AMQP_STATUS_OK ? 1 : -1;
    }
    amqp_maybe_release_buffers(conn);
    return got;
}

/* Takes --count messages off --queue + suffix (--requeue 1: hands them back). */
static int take(int argc, char **argv, const char *suffix) {
    static const char *const known[] = {"url", "queue", "count", "timeout-s", "requeue", NULL};
    struct xlang_args args;
    struct amqp_connection_info info;
    const char *url, *queue;
    uint64_t count = 0, timeout_s = 0, got = 0, requeue = 0;
    char *url_copy = NULL, source[300];
    amqp_connection_state_t conn = amqp_new_connection();
    amqp_socket_t *socket = amqp_tcp_socket_new(conn);
    const struct timespec pause = {0, 100 * 1000 * 1000};
    const time_t deadline_base = time(NULL);
    int rc = 1, step = 0, logged_in = 0;

    if (xlang_parse_args(argc, argv, known, &args) || !(url = xlang_required(&args, "url")) ||
        !(queue = xlang_required(&args, "queue")) || !xlang_required(&args, "count") ||
        xlang_number(&args, "count", 0, &count) ||
        xlang_number(&args, "timeout-s", 30, &timeout_s) ||
        xlang_number(&args, "requeue", 0, &requeue))
        goto done;
    snprintf(source, sizeof source, "%s%s", queue, suffix);
    url_copy = strdup(url); /* amqp_parse_url writes into its input */
    if (url_copy == NULL || amqp_parse_url(url_copy, &info) != AMQP_STATUS_OK) {
        fprintf(stderr, "xlang_c: get: cannot parse the URL\n");
        goto done;
    }
    if (socket == NULL || amqp_socket_open(socket, info.host, info.port) != AMQP_STATUS_OK) {
        fprintf(stderr, "xlang_c: get: cannot connect to %s:%d\n", info.host, info.port);
        goto done;
    }
    if (amqp_failed("login", amqp_login(conn, info.vhost, 0, 131072, 0, AMQP_SASL_METHOD_PLAIN,
                                        info.user, info.password)))
        goto done;
    logged_in = 1;
    amqp_channel_open(conn, 1);
    if (amqp_failed("channel.open", amqp_get_rpc_reply(conn))) goto done;
    while (got < count && (step = get_one(conn, source, requeue != 0)) >= 0) {
        got += (uint64_t)step;
        if (step == 0) {
            if (time(NULL) - deadline_base >= (time_t)timeout_s) break;
            nanosleep(&pause, NULL);
        }
    }
    if (got < count && step >= 0)
        fprintf(stderr, "xlang_c: get: timed out after %llu s with %llu of %llu messages\n",
                (unsigned long long)timeout_s, (unsigned long long)got, (unsigned long long)count);
    rc = got == count ? 0 : 1;
done:
    if (logged_in) amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(conn);
    free(url_copy);
    return rc;
}

int xlang_dead(int argc, char **argv) { return take(argc, argv, ".dead"); }

int xlang_get(int argc, char **argv) { return take(argc, argv, ""); }
