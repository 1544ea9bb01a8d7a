/* tick_scheduler URL GROUP SCHEDULE QUEUE CONNECTION_NAME: a queuey scheduler (the C API
   alone) in group GROUP with one schedule, SCHEDULE, firing a job of type "tick" into
   QUEUE every second. It prints "started" and runs until its stdin closes or it is
   killed. The cli suite runs a few of them to list what they fire (queuey schedule list). */
#include <queuey/queuey.h>

#include <stdio.h>

static int failed(const char *what, qy_error *err) {
    fprintf(stderr, "tick_scheduler: %s: %s\n", what, err ? qy_error_message(err) : "");
    qy_error_free(err);
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: tick_scheduler URL GROUP SCHEDULE QUEUE CONNECTION_NAME\n");
        return 2;
    }
    qy_error *err = NULL;
    qy_schedule *schedule = NULL;
    qy_scheduler_options *opts = NULL;
    qy_client_options *client_opts = NULL;
    qy_scheduler *scheduler = NULL;
    if (qy_schedule_new(argv[3], argv[4], "tick", NULL, NULL, 1000, &schedule, &err) != QY_OK)
        return failed("schedule", err);
    if (qy_scheduler_options_new(&opts, &err) != QY_OK ||
        qy_scheduler_options_add_schedule(opts, schedule, &err) != QY_OK ||
        qy_scheduler_options_set_group(opts, argv[2], &err) != QY_OK)
        return failed("scheduler options", err);
    if (qy_client_options_new(&client_opts, &err) != QY_OK ||
        qy_client_options_set_connection_name(client_opts, argv[5], &err) != QY_OK)
        return failed("client options", err);
    if (qy_scheduler_new(argv[1], client_opts, opts, &scheduler, &err) != QY_OK)
        return failed("scheduler", err);
    printf("started\n");
    fflush(stdout);
    while (getchar() != EOF) {}
    qy_scheduler_free(scheduler);
    qy_client_options_free(client_opts);
    qy_scheduler_options_free(opts);
    qy_schedule_free(schedule);
    return 0;
}
