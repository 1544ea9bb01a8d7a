/* C calls with an enum argument outside its enumerators (enum_out_of_range.c). */
#ifndef QUEUEY_TESTS_ENUM_OUT_OF_RANGE_H
#define QUEUEY_TESTS_ENUM_OUT_OF_RANGE_H

#include <queuey/queuey.h>

#ifdef __cplusplus
extern "C" {
#endif

qy_status qyt_schedule_set_missed_fires_as_int(qy_schedule *schedule, int policy,
                                               uint32_t at_most, qy_error **err);
qy_status qyt_scheduler_count_as_int(const qy_scheduler *scheduler, int counter, uint64_t *out,
                                     qy_error **err);

#ifdef __cplusplus
}
#endif

#endif
