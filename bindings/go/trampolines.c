#include "trampolines.h"

#include <stdint.h>
#include <stdlib.h>

#include "_cgo_export.h"

static uintptr_t handle_of(void *user_data) { return *(uintptr_t *)user_data; }

qy_job_result queuey_run_handler(qy_job *job, void *user_data) {
    return queueyGoRunHandler(job, handle_of(user_data));
}

void queuey_dead_letter(const qy_envelope *env, const char *reason, void *user_data) {
    queueyGoDeadLetter((qy_envelope *)env, (char *)reason, handle_of(user_data));
}

void queuey_log(qy_log_level level, const char *message, void *user_data) {
    queueyGoLog(level, (char *)message, handle_of(user_data));
}

int queuey_visit_message(const qy_message *message, void *user_data) {
    return queueyGoVisitMessage((qy_message *)message, handle_of(user_data));
}

void queuey_release(void *user_data) {
    queueyGoRelease(handle_of(user_data));
    free(user_data);
}
