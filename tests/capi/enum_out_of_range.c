/* Calls with an enum argument outside its enumerators, as a C program may make them (in C
   an enum is an int; in C++ such a value must never be formed, so the tests call these). */
#include "enum_out_of_range.h"

qy_status qyt_schedule_set_missed_fires_as_int(qy_schedule *schedule, int policy,
                                               uint32_t at_most, qy_error **err) {
    return qy_schedule_set_missed_fires(schedule, (qy_missed_fires)policy, at_most, err);
}

qy_status qyt_scheduler_count_as_int(const qy_scheduler *scheduler, int counter, uint64_t *out,
                                     qy_error **err) {
    return qy_scheduler_count(scheduler, (qy_scheduler_counter)counter, out, err);
}
