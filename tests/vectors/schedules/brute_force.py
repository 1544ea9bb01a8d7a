#!/usr/bin/env python3
"""Checks fires.tsv against a brute-force reading of its rules, independent of queuey's
search: every UTC second (interval) or minute (cron) after `after` is tried in turn,
converted to local time with Python's zoneinfo, and fires when

- its local time matches the cron fields and is not the second pass of a local time that
  a DST change repeats (unless the hour field is a wildcard), or
- the local times skipped just before it (a DST gap) hold a match: it is the gap's end.

Exit status 1, with the differing rows, when the file and the brute force disagree."""
import datetime as dt
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

NAMES = {3: "jan feb mar apr may jun jul aug sep oct nov dec".split(),
         4: "sun mon tue wed thu fri sat".split()}
MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
          "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
          "@hourly": "0 * * * *"}
BOUNDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def field_values(index, text):
    lo, hi = BOUNDS[index]
    values = set()
    for element in text.split(","):
        rng, _, step = element.partition("/")
        if rng == "*":
            first, last = lo, hi
        else:
            a, dash, b = rng.partition("-")
            num = lambda t: NAMES[index].index(t.lower()) + lo if t.isalpha() else int(t)
            first = num(a)
            last = num(b) if dash else (hi if step else first)
        values.update(range(first, last + 1, int(step or 1)))
    if index == 4 and 7 in values:
        values.add(0)
    return values


def matcher(cron):
    fields = MACROS.get(cron, cron).split()
    sets = [field_values(i, f) for i, f in enumerate(fields)]
    either_day = not fields[2].startswith("*") and not fields[4].startswith("*")

    def day_matches(local):
        dom, dow = local.day in sets[2], (local.isoweekday() % 7) in sets[4]
        return local.month in sets[3] and ((dom or dow) if either_day else (dom and dow))

    def matches(local):
        return local.minute in sets[0] and local.hour in sets[1] and day_matches(local)
    return matches, day_matches, fields[1].startswith("*")


def utc(text):
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)


def cron_fires(cron, zone, after, count):
    matches, day_matches, every_hour = matcher(cron)
    tz = ZoneInfo(zone)
    at = after.replace(second=0) + dt.timedelta(minutes=1)
    previous_local = (at - dt.timedelta(minutes=1)).astimezone(tz).replace(tzinfo=None)
    fires = []
    while len(fires) < count:
        aware = at.astimezone(tz)
        local = aware.replace(tzinfo=None)
        second_pass = aware.fold == 1  # the second time this wall time happens
        skipped = local - previous_local > dt.timedelta(minutes=1)
        gap_match = False
        if skipped:
            probe = previous_local + dt.timedelta(minutes=1)
            while probe < local and not gap_match:
                gap_match = matches(probe)
                probe += dt.timedelta(minutes=1)
        if gap_match or (matches(local) and (not second_pass or every_hour)):
            fires.append(at)
        previous_local = local
        at += dt.timedelta(minutes=1)
        if not day_matches(local) and at.minute % 15 and not skipped:
            # Nothing fires on this local day: on to the next quarter hour (every zone's
            # offset is whole quarter hours in the dates of fires.tsv).
            at += dt.timedelta(minutes=15 - at.minute % 15)
            previous_local = (at - dt.timedelta(minutes=1)).astimezone(tz).replace(tzinfo=None)
    return fires


def interval_fires(interval_ms, after, count):
    step = interval_ms // 1000
    start = int(after.timestamp()) // step + 1
    return [dt.datetime.fromtimestamp((start + k) * step, dt.timezone.utc)
            for k in range(count)]


def main():
    path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("fires.tsv"))
    lines = path.read_text().splitlines()
    bad = 0
    for line in lines[1:]:
        name, cron, interval_ms, zone, after, expected = line.split("\t")
        want = expected.split(" ")
        if cron != "-":
            got = cron_fires(cron, zone, utc(after), len(want))
        else:
            got = interval_fires(int(interval_ms), utc(after), len(want))
        got = [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in got]
        if got != want:
            bad += 1
            print(f"{name}: fires.tsv says {want}, brute force {got}")
    print(f"{len(lines) - 1 - bad} rows agree, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
