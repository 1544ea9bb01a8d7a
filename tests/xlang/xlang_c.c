/*
 * xlang_c: queuey's C API behind the cross-implementation CLI contract (docs/interop.md).
 *
 *   xlang_c enqueue --url URL --queue Q --type T --payload JSON [--after-ms N | --defer-ms N]
 * [--correlation-id C] xlang_c work --url URL --queue Q --handled N [--timeout-s S] xlang_c dead
 * --url URL --queue Q --count N [--timeout-s S] xlang_c get --url URL --queue Q --count N
 * [--timeout-s S] [--requeue 1]   (Q, not Q.dead) xlang_c codec FILE [next_attempt | deferred:P]
 */
#include "xlang_commands.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {
        {"enqueue", xlang_enqueue}, {"work", xlang_work},   {"dead", xlang_dead},
        {"get", xlang_get},         {"codec", xlang_codec}, {"schedule", xlang_schedule},
    };
    for (size_t i = 0; argc > 1 && i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "usage: xlang_c enqueue|work|dead|get|codec|schedule ARGS\n");
    return 1;
}
