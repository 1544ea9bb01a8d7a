/* xlang_c schedule --url URL --group G --name N --queue Q --connection-name C [--catch-up K]:
   a scheduler (qy_scheduler_*) of one schedule N firing a job of type "tick" (payload
   null) into Q every second, in the election of group G, connected as C; catch-up K (0,
   the default: skip) for fires it comes to late. Prints "started", runs until its stdin
   ends (or it is killed), then prints its counts as one JSON line. */
#include "xlang_commands.h"
#include "xlang_util.h"

#include <queuey/queuey.h>

#include <inttypes.h>
#include <stdio.h>

static int refused(const char *what, qy_error *err) {
    fprintf(stderr, "xlang_c schedule: %s: %s\n", what, err ? qy_error_message(err) : "");
    qy_error_free(err);
    return 1;
}

/* Runs the started scheduler until stdin ends; prints its counts. */
static int run(qy_scheduler *scheduler) {
    static const struct {
        const char *name;
        qy_scheduler_counter counter;
    } counters[] = {{"fires", QY_SCHEDULER_FIRES},
                    {"skipped", QY_SCHEDULER_SKIPPED},
                    {"caught_up", QY_SCHEDULER_CAUGHT_UP},
                    {"leads", QY_SCHEDULER_LEADS},
                    {"failures", QY_SCHEDULER_FAILURES}};
    printf("started\n");
    fflush(stdout);
    while (getchar() != EOF) {}
    uint64_t counts[sizeof counters / sizeof counters[0]];
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; ++i) {
        qy_error *err = NULL;
        if (qy_scheduler_count(scheduler, counters[i].counter, &counts[i], &err) != QY_OK)
            return refused("count", err);
    }
    qy_scheduler_free(scheduler);
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; ++i)
        printf("%s\"%s\":%" PRIu64, i ? "," : "{", counters[i].name, counts[i]);
    printf("}\n");
    return 0;
}

int xlang_schedule(int argc, char **argv) {
    static const char *const known[] = {"url",      "group", "name", "queue", "connection-name",
                                        "catch-up", NULL};
    struct xlang_args args;
    uint64_t catch_up = 0;
    if (xlang_parse_args(argc, argv, known, &args) != 0 ||
        xlang_number(&args, "catch-up", 0, &catch_up) != 0)
        return 1;
    const char *url = xlang_required(&args, "url"), *group = xlang_required(&args, "group"),
               *name = xlang_required(&args, "name"), *queue = xlang_required(&args, "queue"),
               *connection = xlang_required(&args, "connection-name");
    if (!url || !group || !name || !queue || !connection) return 1;

    qy_error *err = NULL;
    qy_schedule *schedule = NULL;
    if (qy_schedule_new(name, queue, "tick", NULL, NULL, 1000, &schedule, &err) != QY_OK)
        return refused("schedule", err);
    qy_scheduler_options *opts = NULL;
    qy_client_options *client_opts = NULL;
    qy_scheduler *scheduler = NULL;
    int status = 1;
    if (catch_up > 0 && qy_schedule_set_missed_fires(schedule, QY_MISSED_FIRES_CATCH_UP,
                                                     (uint32_t)catch_up, &err) != QY_OK)
        status = refused("catch-up", err);
    else if (qy_scheduler_options_new(&opts, &err) != QY_OK ||
             qy_scheduler_options_add_schedule(opts, schedule, &err) != QY_OK ||
             qy_scheduler_options_set_group(opts, group, &err) != QY_OK ||
             qy_client_options_new(&client_opts, &err) != QY_OK ||
             qy_client_options_set_connection_name(client_opts, connection, &err) != QY_OK)
        status = refused("options", err);
    else if (qy_scheduler_new(url, client_opts, opts, &scheduler, &err) != QY_OK)
        status = refused("scheduler", err);
    else
        status = run(scheduler);
    qy_client_options_free(client_opts);
    qy_scheduler_options_free(opts);
    qy_schedule_free(schedule);
    return status;
}
