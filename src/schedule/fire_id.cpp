#include "fire_id.hpp"

#include "../uuid.hpp"

#include <cstdio>

namespace queuey {

using namespace std::chrono;

std::string rfc3339_utc(FireTime fire) {
    const sys_days day = floor<days>(fire);
    const year_month_day date{day};
    const hh_mm_ss<seconds> time{fire - day};
    char text[32];
    std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02dZ",
                  static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                  static_cast<unsigned>(date.day()), static_cast<int>(time.hours().count()),
                  static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()));
    return text;
}

std::string fire_job_id(std::string_view schedule_name, FireTime fire) {
    std::string name(schedule_name);
    name += '@';
    name += rfc3339_utc(fire);
    return name_based_uuid_v5(fire_id_namespace, name);
}

}  // namespace queuey
