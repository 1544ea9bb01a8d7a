/* C functions that queuey calls back, each passing on to the Go function exported in
   callbacks.go. Their user_data is malloc'ed memory holding a runtime/cgo.Handle: a real
   C pointer, since C keeps it beyond the call that registered it. */
#ifndef QUEUEY_GO_TRAMPOLINES_H
#define QUEUEY_GO_TRAMPOLINES_H

#include <queuey/queuey.h>

qy_job_result queuey_run_handler(qy_job *job, void *user_data);
void queuey_dead_letter(const qy_envelope *env, const char *reason, void *user_data);
void queuey_log(qy_log_level level, const char *message, void *user_data);
int queuey_visit_message(const qy_message *message, void *user_data);
void queuey_release(void *user_data);

#endif
