/*
 * broker_probe: looks at a queue of the chaos suite's broker with rabbitmq-c directly,
 * not through queuey, so that it checks queuey independently and can do what queuey's
 * API does not offer (read the headers of a dead letter, requeue a message).
 *
 *   broker_probe dead URL QUEUE    takes every message off QUEUE (its dead-letter
 *                                  queue), printing "dead <message-id> <x-death-reason>"
 *                                  for each, then "dead_letters count=<n>"
 *   broker_probe peek URL QUEUE    basic.get one message and reject it with requeue, as
 *                                  the management UI's "Get messages" does: prints
 *                                  "peeked <message-id> redelivered=<0|1>", or
 *                                  "peeked none" (exit 4) when QUEUE is empty
 *
 * URL must point at 127.0.0.1 (or localhost). Exit status: 0 done, 2 bad arguments,
 * 3 a broker error, 4 nothing to peek.
 */
#define _POSIX_C_SOURCE 200809L

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const amqp_channel_t channel = 1;

static void usage(const char *message) {
    fprintf(stderr, "broker_probe: %s\nusage: broker_probe dead|peek URL QUEUE\n", message);
    exit(2);
}

static void broker_error(const char *what, amqp_rpc_reply_t reply) {
    fprintf(stderr, "broker_probe: %s failed (reply type %d, library error %s)\n", what,
            (int)reply.reply_type, amqp_error_string2(reply.library_error));
    exit(3);
}

static amqp_connection_state_t connect_to(const char *url) {
    struct amqp_connection_info info;
    char *parsed = strdup(url);
    amqp_connection_state_t conn = amqp_new_connection();
    amqp_socket_t *socket = amqp_tcp_socket_new(conn);
    amqp_rpc_reply_t reply;

    if (parsed == NULL || conn == NULL || socket == NULL) usage("out of memory");
    if (amqp_parse_url(parsed, &info) != AMQP_STATUS_OK)
        usage("URL does not parse as amqp://user:pass@host:port/vhost");
    if (strcmp(info.host, "127.0.0.1") != 0 && strcmp(info.host, "localhost") != 0)
        usage("only a broker on 127.0.0.1 may be probed");
    if (amqp_socket_open(socket, info.host, info.port) != AMQP_STATUS_OK) {
        fprintf(stderr, "broker_probe: cannot connect to %s:%d\n", info.host, info.port);
        exit(3);
    }
    reply = amqp_login(conn, info.vhost, 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, info.user,
                       info.password);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) broker_error("login", reply);
    amqp_channel_open(conn, channel);
    reply = amqp_get_rpc_reply(conn);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) broker_error("channel.open", reply);
    free(parsed);
    return conn;
}

static void disconnect(amqp_connection_state_t conn) {
    amqp_channel_close(conn, channel, AMQP_REPLY_SUCCESS);
    amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(conn);
}

/* basic.get on queue; returns 0 when it is empty, else 1 with *message read and its
   delivery tag and redelivered flag. */
static int get_one(amqp_connection_state_t conn, const char *queue, int no_ack,
                   amqp_message_t *message, uint64_t *tag, int *redelivered) {
    amqp_rpc_reply_t reply = amqp_basic_get(conn, channel, amqp_cstring_bytes(queue), no_ack);
    const amqp_basic_get_ok_t *ok;
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) broker_error("basic.get", reply);
    if (reply.reply.id == AMQP_BASIC_GET_EMPTY_METHOD) return 0;
    ok = reply.reply.decoded;
    *tag = ok->delivery_tag;
    *redelivered = ok->redelivered;
    reply = amqp_read_message(conn, channel, message, 0);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) broker_error("reading the message", reply);
    return 1;
}

static amqp_bytes_t message_id(const amqp_message_t *message) {
    static const amqp_bytes_t none = {4, "none"};
    return (message->properties._flags & AMQP_BASIC_MESSAGE_ID_FLAG)
               ? message->properties.message_id
               : none;
}

/* The string header name of message, or "(none)". */
static amqp_bytes_t string_header(const amqp_message_t *message, const char *name) {
    static const amqp_bytes_t none = {6, "(none)"};
    const amqp_table_t *headers = &message->properties.headers;
    int i;
    if (!(message->properties._flags & AMQP_BASIC_HEADERS_FLAG)) return none;
    for (i = 0; i < headers->num_entries; ++i) {
        const amqp_table_entry_t *entry = &headers->entries[i];
        if (entry->key.len == strlen(name) && memcmp(entry->key.bytes, name, entry->key.len) == 0 &&
            (entry->value.kind == AMQP_FIELD_KIND_UTF8 ||
             entry->value.kind == AMQP_FIELD_KIND_BYTES))
            return entry->value.value.bytes;
    }
    return none;
}

static int read_dead_letters(amqp_connection_state_t conn, const char *queue) {
    amqp_message_t message;
    uint64_t tag;
    int redelivered;
    long count = 0;
    while (get_one(conn, queue, 1, &message, &tag, &redelivered)) {
        const amqp_bytes_t id = message_id(&message),
                           reason = string_header(&message, "x-death-reason");
        printf("dead %.*s %.*s\n", (int)id.len, (const char *)id.bytes, (int)reason.len,
               (const char *)reason.bytes);
        ++count;
        amqp_destroy_message(&message);
        amqp_maybe_release_buffers(conn);
    }
    printf("dead_letters count=%ld\n", count);
    return 0;
}

static int peek(amqp_connection_state_t conn, const char *queue) {
    amqp_message_t message;
    uint64_t tag;
    int redelivered;
    amqp_bytes_t id;
    if (!get_one(conn, queue, 0, &message, &tag, &redelivered)) {
        printf("peeked none\n");
        return 4;
    }
    id = message_id(&message);
    printf("peeked %.*s redelivered=%d\n", (int)id.len, (const char *)id.bytes, redelivered);
    amqp_destroy_message(&message);
    if (amqp_basic_reject(conn, channel, tag, 1) != AMQP_STATUS_OK) {
        fprintf(stderr, "broker_probe: basic.reject failed\n");
        return 3;
    }
    return 0;
}

int main(int argc, char **argv) {
    amqp_connection_state_t conn;
    int status;
    if (argc != 4) usage("wrong number of arguments");
    if (strcmp(argv[1], "dead") != 0 && strcmp(argv[1], "peek") != 0) usage("unknown mode");
    conn = connect_to(argv[2]);
    status = strcmp(argv[1], "dead") == 0 ? read_dead_letters(conn, argv[3]) : peek(conn, argv[3]);
    fflush(stdout);
    disconnect(conn);
    return status;
}
