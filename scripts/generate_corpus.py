#!/usr/bin/env python3
"""Writes a realistic, deterministic Apple Health export.zip with workout routes, for the import benchmark.

Profiles:
- `typical-year`: one year of an iPhone + Apple Watch + a third-party app (overlapping steps, distance and energy),
  heart rate with motion context, HRV with beat lists, sleep stages, blood-pressure correlations, activity summaries,
  a run every third day with a GPX route at 1 point per second, ECG CSVs, clinical records (FHIR JSON).
- `heavy-runner`: ten years of the same, with a run (and its route) every day.

Routes are written the way the iPhone writes them (workout-routes/route_YYYY-MM-DD_H.MMam.gpx):
`<trkpt lon lat><ele/><time/><extensions><speed/><course/><hAcc/><vAcc/></extensions></trkpt>`, six decimals.
The same seed always gives the same bytes.

    python3 scripts/generate_corpus.py --profile typical-year --out bench-out/typical-year.zip
    python3 scripts/generate_corpus.py --profile heavy-runner --out bench-out/heavy-runner.zip
"""
import argparse
import datetime as dt
import math
import os
import random
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_export as base  # noqa: E402  (the record generator shared with the record-only benchmark)

PROFILES = {
    # days, first day, run every N days
    "typical-year": (365, dt.date(2024, 1, 1), 3),
    "heavy-runner": (3650, dt.date(2015, 1, 1), 1),
}
APP = ("Pedometer++", "5.2", "")
ROOT = "apple_health_export"


def fmt(t):
    return t.strftime("%Y-%m-%d %H:%M:%S +0100")


def route_name(t):
    hour = t.hour % 12 or 12
    return f"route_{t:%Y-%m-%d}_{hour}.{t.minute:02d}{'am' if t.hour < 12 else 'pm'}.gpx"


def gpx(rng, start, seconds, utc_offset=dt.timedelta(hours=1)):
    """A GPX file as the iPhone writes it: one point per second along a wandering loop."""
    lat, lon = 48.85 + rng.uniform(-0.05, 0.05), 2.35 + rng.uniform(-0.05, 0.05)
    ele = rng.uniform(30, 90)
    heading = rng.uniform(0, 360)
    utc = start - utc_offset
    lines = ['<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export" '
             'xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n'
             f'  <metadata>\n    <time>{utc:%Y-%m-%dT%H:%M:%SZ}</time>\n  </metadata>\n  <trk>\n'
             f'    <name>Route {start:%Y-%m-%d %-I:%M%p}</name>\n    <trkseg>\n']
    append = lines.append
    cos_lat = math.cos(math.radians(lat))
    for i in range(seconds):
        speed = 2.6 + 0.4 * math.sin(i / 97.0) + rng.uniform(-0.15, 0.15)
        heading = (heading + rng.uniform(-6, 6)) % 360
        rad = math.radians(heading)
        lat += speed * math.cos(rad) / 111_320
        lon += speed * math.sin(rad) / (111_320 * cos_lat)
        ele += rng.uniform(-0.4, 0.42)
        t = utc + dt.timedelta(seconds=i)
        append(f'      <trkpt lon="{lon:.6f}" lat="{lat:.6f}"><ele>{ele:.6f}</ele><time>{t:%Y-%m-%dT%H:%M:%SZ}</time>'
               f'<extensions><speed>{speed:.6f}</speed><course>{heading:.6f}</course>'
               f'<hAcc>{rng.uniform(1.5, 6):.6f}</hAcc><vAcc>{rng.uniform(1, 4):.6f}</vAcc></extensions></trkpt>\n')
    append("    </trkseg>\n  </trk>\n</gpx>\n")
    return "".join(lines)


def run_workout(out, rng, date, files):
    """A run with events, statistics and a route whose GPX file goes into `files`. Returns the route's points."""
    s = dt.datetime(date.year, date.month, date.day, 6 + rng.randrange(13), rng.randrange(60))
    seconds = rng.randrange(25 * 60, 50 * 60)
    e = s + dt.timedelta(seconds=seconds)
    minutes = seconds / 60
    km = seconds * 2.6 / 1000
    name = route_name(s)
    watch = base.WATCH[0]
    out.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="{minutes}" durationUnit="min" '
               f'totalDistance="{km:.3f}" totalDistanceUnit="km" totalEnergyBurned="{minutes * 11:.1f}" '
               f'totalEnergyBurnedUnit="Cal" sourceName="{watch}" sourceVersion="10.4" '
               f'creationDate="{fmt(e)}" startDate="{fmt(s)}" endDate="{fmt(e)}">\n'
               f'  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n'
               f'  <MetadataEntry key="HKWeatherTemperature" value="{rng.randrange(40, 80)} degF"/>\n'
               f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{fmt(s)}" duration="{minutes}" durationUnit="min"/>\n'
               f'  <WorkoutEvent type="HKWorkoutEventTypePause" date="{fmt(s + dt.timedelta(minutes=10))}"/>\n'
               f'  <WorkoutEvent type="HKWorkoutEventTypeResume" date="{fmt(s + dt.timedelta(minutes=11))}"/>\n'
               f'  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="{fmt(s)}" endDate="{fmt(e)}" sum="{minutes * 11:.1f}" unit="Cal"/>\n'
               f'  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="{fmt(s)}" endDate="{fmt(e)}" sum="{km:.3f}" unit="km"/>\n'
               f'  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="{fmt(s)}" endDate="{fmt(e)}" average="151" minimum="120" maximum="172" unit="count/min"/>\n'
               f'  <WorkoutRoute sourceName="{watch}" sourceVersion="10.4" creationDate="{fmt(e)}" startDate="{fmt(s)}" endDate="{fmt(e)}">\n'
               f'   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>\n'
               f'   <MetadataEntry key="HKMetadataKeySyncIdentifier" value="{rng.getrandbits(64):016X}"/>\n'
               f'   <FileReference path="/workout-routes/{name}"/>\n'
               '  </WorkoutRoute>\n'
               ' </Workout>\n')
    files.append((f"workout-routes/{name}", gpx(rng, s, seconds)))
    return seconds, run_samples(out, rng, s, seconds)


def run_samples(out, rng, start, seconds):
    """What the watch records during a run: heart rate every 5 s, and since watchOS 9 (2022) running speed and
    power every 5 s. Returns the number of records."""
    watch, count = base.WATCH, 0
    metrics = start.year >= 2022
    for offset in range(0, seconds, 5):
        t = start + dt.timedelta(seconds=offset)
        base.record(out, rng, "HKQuantityTypeIdentifierHeartRate", "count/min", rng.randrange(130, 175), watch, t, t,
                    [("HKMetadataKeyHeartRateMotionContext", 2)])
        count += 1
        if metrics:
            e = t + dt.timedelta(seconds=5)
            base.record(out, rng, "HKQuantityTypeIdentifierRunningSpeed", "km/hr", round(rng.uniform(8.5, 11.5), 3),
                        watch, t, e)
            base.record(out, rng, "HKQuantityTypeIdentifierRunningPower", "W", rng.randrange(200, 290), watch, t, e)
            count += 2
    return count


def night(out, rng, date):
    """Respiratory rate every 3 minutes from 1 am to 6 am."""
    count = 0
    for minute in range(60, 360, 3):
        t = dt.datetime(date.year, date.month, date.day) + dt.timedelta(minutes=minute)
        base.record(out, rng, "HKQuantityTypeIdentifierRespiratoryRate", "count/min", round(rng.uniform(12, 17), 1),
                    base.WATCH, t, t + dt.timedelta(minutes=1))
        count += 1
    return count


def hrv(out, rng, date):
    """An HRV reading with its beat list (times of day, locale formatted), as the watch writes them."""
    s = dt.datetime(date.year, date.month, date.day, 3, rng.randrange(60))
    e = s + dt.timedelta(seconds=60)
    beats = []
    t = s
    for _ in range(rng.randrange(50, 70)):
        t += dt.timedelta(seconds=rng.uniform(0.8, 1.2))
        hour = t.hour % 12 or 12
        beats.append(f'   <InstantaneousBeatsPerMinute bpm="{rng.randrange(52, 70)}" '
                     f'time="{hour}:{t.minute:02d}:{t.second:02d}.{t.microsecond // 10000:02d} {"AM" if t.hour < 12 else "PM"}"/>\n')
    out.append(f' <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="{base.WATCH[0]}" '
               f'sourceVersion="10.4" unit="ms" creationDate="{fmt(e)}" startDate="{fmt(s)}" endDate="{fmt(e)}" '
               f'value="{rng.uniform(25, 80):.4f}">\n  <HeartRateVariabilityMetadataList>\n' + "".join(beats)
               + '  </HeartRateVariabilityMetadataList>\n </Record>\n')
    return 1


def app_steps(out, rng, date):
    """A third-party app that also counts steps, overlapping the phone and the watch."""
    count = 0
    for hour in range(8, 20, 3):
        s = dt.datetime(date.year, date.month, date.day, hour)
        e = s + dt.timedelta(hours=1)
        out.append(f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{APP[0]}" sourceVersion="{APP[1]}" '
                   f'unit="count" creationDate="{fmt(e)}" startDate="{fmt(s)}" endDate="{fmt(e)}" value="{rng.randrange(200, 2500)}"/>\n')
        count += 1
    return count


def ecg(rng, t):
    lines = ["Name,Alex Example", "Date of Birth,\"Apr 12, 1985\"", f"Recorded Date,{fmt(t)}",
             "Classification,Sinus Rhythm", "Symptoms,", "Software Version,2", "Device,\"Watch6,2\"",
             "Sample Rate,512 hertz", "Lead,Lead I", "Unit,µV", ""]
    for i in range(512 * 30):
        lines.append(f"{300 * math.sin(i / 40.0) + rng.uniform(-20, 20):.3f}")
    return "\n".join(lines) + "\n"


def clinical(out, rng, date, index, files):
    path = f"clinical-records/Observation-{index:04d}.json"
    received = dt.datetime(date.year, date.month, date.day, 10)
    out.append(f' <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="obs-{index}" '
               f'sourceName="Example Hospital" sourceURL="https://fhir.example.org/api/FHIR/DSTU2/" fhirVersion="1.0.2" '
               f'receivedDate="{fmt(received)}" resourceFilePath="/{path}"/>\n')
    files.append((path, '{"resourceType":"Observation","id":"obs-%d","status":"final","code":{"text":"Hemoglobin A1c"},'
                        '"effectiveDateTime":"%s","valueQuantity":{"value":%.1f,"unit":"%%"}}'
                  % (index, received.isoformat(), rng.uniform(4.8, 6.2))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", choices=sorted(PROFILES), default="typical-year")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    days, first, run_every = PROFILES[args.profile]
    rng = random.Random(args.seed)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    records = points = routes = 0
    summaries = []
    with zipfile.ZipFile(args.out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        attachments = []
        xml_path = args.out + ".export.xml"
        with open(xml_path, "wb") as xml:
            xml.write(base.HEADER.encode())
            date = first
            for index in range(days):
                out = []
                records += base.day(out, rng, date)
                records += app_steps(out, rng, date)
                records += hrv(out, rng, date)
                records += night(out, rng, date)
                if index % run_every == 0:
                    seconds, samples = run_workout(out, rng, date, attachments)
                    points += seconds
                    records += samples
                    routes += 1
                if index % 60 == 5:
                    clinical(out, rng, date, index, attachments)
                if index % 45 == 7:
                    t = dt.datetime(date.year, date.month, date.day, 12, 30)
                    attachments.append((f"electrocardiograms/ecg_{date.isoformat()}.csv", ecg(rng, t)))
                xml.write("".join(out).encode())
                summaries.append(f' <ActivitySummary dateComponents="{date.isoformat()}" activeEnergyBurned="{rng.uniform(300, 700):.3f}" '
                                 'activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" '
                                 f'appleExerciseTime="{rng.randrange(10, 60)}" appleExerciseTimeGoal="30" appleStandHours="{rng.randrange(6, 14)}" appleStandHoursGoal="12"/>\n')
                # Attachments go into the zip as they come, so memory stays flat for ten years of routes.
                for path, text in attachments:
                    z.writestr(f"{ROOT}/{path}", text)
                attachments = []
                date += dt.timedelta(days=1)
            xml.write(("".join(summaries) + "</HealthData>\n").encode())
        z.write(xml_path, f"{ROOT}/export.xml")
        os.remove(xml_path)
    print(f"{args.out}: {args.profile}, {records} records, {routes} routes, {points} route points, "
          f"{os.path.getsize(args.out) / 1e6:.0f} MB zipped")


if __name__ == "__main__":
    main()
