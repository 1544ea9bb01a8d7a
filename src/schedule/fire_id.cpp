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

std::optional<FireTime> parse_rfc3339_utc(std::string_view text) {
    // Twenty characters "YYYY-MM-DDTHH:MM:SSZ"; read by a pattern, then accepted only if it
    // spells back the same (no day 31 of April, no hour 24, no sign or space).
    if (text.size() != 20) return std::nullopt;
    const std::string copy(text);
    int y = 0;
    unsigned mo = 0, d = 0, h = 0, mi = 0, s = 0;
    char zone = 0;
    if (std::sscanf(copy.c_str(), "%4d-%2u-%2uT%2u:%2u:%2u%c", &y, &mo, &d, &h, &mi, &s, &zone) !=
        7)
        return std::nullopt;
    const year_month_day date{year{y}, month{mo}, day{d}};
    if (!date.ok() || h > 23 || mi > 59 || s > 59) return std::nullopt;
    const FireTime time = sys_days{date} + hours{h} + minutes{mi} + seconds{s};
    if (time < first_fire_time || time >= fire_times_end || rfc3339_utc(time) != text)
        return std::nullopt;
    return time;
}

std::string fire_job_id(std::string_view schedule_name, FireTime fire) {
    std::string name(schedule_name);
    name += '@';
    name += rfc3339_utc(fire);
    return name_based_uuid_v5(fire_id_namespace, name);
}

}  // namespace queuey
