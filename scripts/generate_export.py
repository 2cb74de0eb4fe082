#!/usr/bin/env python3
"""Writes a realistic, deterministic Apple Health export (export.zip or export.xml) of a given size.

An iPhone and an Apple Watch record overlapping steps, distance and energy; the watch records heart rate (with
metadata), sleep stages and stand hours; the phone records in-bed intervals; there are workouts with events and
statistics, blood-pressure correlations, and activity summaries. Device strings carry a changing HKDevice address,
as in real exports.

    python3 scripts/generate_export.py --mb 270 --out bench-out/export.zip
"""
import argparse
import datetime as dt
import os
import random
import zipfile

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 14 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT ExportDate EMPTY>
<!ATTLIST ExportDate
  value CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
<!ATTLIST VisionPrescription
  type             CDATA #REQUIRED
>
]>
<HealthData locale="en_US">
 <ExportDate value="2024-12-31 23:00:00 +0100"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-04-12" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
"""

PHONE = ("Alex’s iPhone", "17.4",
         "&lt;&lt;HKDevice: 0x{addr:x}&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.4&gt;")
WATCH = ("Alex’s Apple Watch", "10.4",
         "&lt;&lt;HKDevice: 0x{addr:x}&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.4&gt;")


def fmt(t):
    return t.strftime("%Y-%m-%d %H:%M:%S +0100")


def record(out, rng, typ, unit, value, source, start, end, meta=None):
    name, version, device = source
    dev = device.format(addr=0x280000000 + rng.randrange(1 << 24))
    unit_attr = f' unit="{unit}"' if unit else ""
    head = (f' <Record type="{typ}" sourceName="{name}" sourceVersion="{version}" device="{dev}"{unit_attr} '
            f'creationDate="{fmt(end)}" startDate="{fmt(start)}" endDate="{fmt(end)}" value="{value}"')
    if meta:
        out.append(head + ">\n" + "".join(f'  <MetadataEntry key="{k}" value="{v}"/>\n' for k, v in meta) + " </Record>\n")
    else:
        out.append(head + "/>\n")


def day(out, rng, date):
    base = dt.datetime(date.year, date.month, date.day)
    count = 0
    # Walks recorded by both devices in their own chunks.
    minute = 7 * 60 + rng.randrange(60)
    while minute < 21 * 60:
        length = rng.randrange(4, 35)
        cadence = rng.randrange(85, 120)
        for source, chunk in ((WATCH, (1, 4)), (PHONE, (2, 9))):
            if source is PHONE and rng.random() > 0.6:
                continue
            m = 0
            while m < length:
                step = min(rng.randrange(*chunk), length - m)
                s = base + dt.timedelta(minutes=minute + m)
                e = s + dt.timedelta(minutes=step)
                record(out, rng, "HKQuantityTypeIdentifierStepCount", "count", step * cadence, source, s, e)
                record(out, rng, "HKQuantityTypeIdentifierDistanceWalkingRunning", "km",
                       round(step * cadence * 0.00074, 5), source, s, e)
                record(out, rng, "HKQuantityTypeIdentifierActiveEnergyBurned", "Cal", round(step * 4.2, 3), source, s, e)
                count += 3
                m += step
        minute += length + rng.randrange(20, 90)
    # Heart rate every 4 minutes, with motion context.
    for slot in range(0, 24 * 60, 4):
        s = base + dt.timedelta(minutes=slot)
        record(out, rng, "HKQuantityTypeIdentifierHeartRate", "count/min", rng.randrange(55, 110), WATCH, s, s,
               [("HKMetadataKeyHeartRateMotionContext", rng.choice((0, 1, 2)))])
        count += 1
    for hour in range(24):
        s = base + dt.timedelta(hours=hour)
        record(out, rng, "HKQuantityTypeIdentifierBasalEnergyBurned", "Cal", round(rng.uniform(60, 75), 3), WATCH, s,
               s + dt.timedelta(hours=1))
        count += 1
        if 7 <= hour < 22:
            out.append(f' <Record type="HKCategoryTypeIdentifierAppleStandHour" sourceName="{WATCH[0]}" sourceVersion="10.4" '
                       f'creationDate="{fmt(s)}" startDate="{fmt(s)}" endDate="{fmt(s + dt.timedelta(hours=1))}" '
                       f'value="HKCategoryValueAppleStandHour{rng.choice(("Stood", "Idle"))}"/>\n')
            count += 1
    # Sleep: phone in bed, watch stages.
    bed = base - dt.timedelta(minutes=60 + rng.randrange(60))
    wake = base + dt.timedelta(hours=7, minutes=rng.randrange(60))
    out.append(f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="{PHONE[0]}" sourceVersion="17.4" '
               f'creationDate="{fmt(wake)}" startDate="{fmt(bed)}" endDate="{fmt(wake)}" value="HKCategoryValueSleepAnalysisInBed"/>\n')
    t = bed + dt.timedelta(minutes=15)
    while t < wake:
        stage = rng.choice(("AsleepCore", "AsleepDeep", "AsleepREM", "Awake"))
        e = min(wake, t + dt.timedelta(minutes=rng.randrange(5, 45)))
        out.append(f' <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="{WATCH[0]}" sourceVersion="10.4" '
                   f'creationDate="{fmt(e)}" startDate="{fmt(t)}" endDate="{fmt(e)}" value="HKCategoryValueSleepAnalysis{stage}">\n'
                   f'  <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>\n </Record>\n')
        t = e
        count += 1
    # Blood pressure every few days, as a correlation whose records also appear at the top level.
    if date.toordinal() % 4 == 0:
        s = base + dt.timedelta(hours=8)
        sys_, dia = rng.randrange(110, 130), rng.randrange(70, 85)
        rec = lambda typ, v: (f'  <Record type="HKQuantityTypeIdentifier{typ}" sourceName="Health" sourceVersion="17.4" unit="mmHg" '
                              f'creationDate="{fmt(s)}" startDate="{fmt(s)}" endDate="{fmt(s)}" value="{v}"/>\n')
        out.append(rec("BloodPressureSystolic", sys_)[1:] + rec("BloodPressureDiastolic", dia)[1:])
        out.append(f' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Health" sourceVersion="17.4" '
                   f'creationDate="{fmt(s)}" startDate="{fmt(s)}" endDate="{fmt(s)}">\n'
                   f'  <MetadataEntry key="HKWasUserEntered" value="1"/>\n'
                   + rec("BloodPressureSystolic", sys_) + rec("BloodPressureDiastolic", dia) + ' </Correlation>\n')
        count += 2
    # A run every third day.
    if date.toordinal() % 3 == 0:
        s = base + dt.timedelta(hours=18)
        e = s + dt.timedelta(minutes=rng.randrange(25, 50))
        dur = (e - s).seconds / 60
        out.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="{dur}" durationUnit="min" '
                   f'sourceName="{WATCH[0]}" sourceVersion="10.4" creationDate="{fmt(e)}" startDate="{fmt(s)}" endDate="{fmt(e)}">\n'
                   f'  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n'
                   f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{fmt(s)}" duration="{dur}" durationUnit="min"/>\n'
                   f'  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="{fmt(s)}" endDate="{fmt(e)}" sum="{dur * 11:.1f}" unit="Cal"/>\n'
                   f'  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="{fmt(s)}" endDate="{fmt(e)}" average="151" minimum="120" maximum="172" unit="count/min"/>\n'
                   ' </Workout>\n')
    return count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=270, help="size of the XML in MB")
    parser.add_argument("--out", default="bench-out/export.zip")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--broken-dtd", action="store_true",
                        help="leave ATTLIST VisionPrescription unclosed, as iOS 16 did (strict XML parsers then fail)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    xml_path = args.out[:-4] + ".xml" if args.out.endswith(".zip") else args.out
    target = int(args.mb * 1_000_000)
    written, records = 0, 0
    date = dt.date(2018, 1, 1)
    summaries = []
    with open(xml_path, "w", encoding="utf-8") as f:
        f.write(HEADER.replace("  type             CDATA #REQUIRED\n>\n", "  type             CDATA #REQUIRED\n")
                if args.broken_dtd else HEADER)
        while written < target:
            out = []
            records += day(out, rng, date)
            chunk = "".join(out)
            f.write(chunk)
            written += len(chunk.encode())
            summaries.append(f' <ActivitySummary dateComponents="{date.isoformat()}" activeEnergyBurned="{rng.uniform(300, 700):.3f}" '
                             'activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" '
                             f'appleExerciseTime="{rng.randrange(10, 60)}" appleExerciseTimeGoal="30" appleStandHours="{rng.randrange(6, 14)}" appleStandHoursGoal="12"/>\n')
            date += dt.timedelta(days=1)
        f.write("".join(summaries))
        f.write("</HealthData>\n")
    if args.out.endswith(".zip"):
        with zipfile.ZipFile(args.out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            z.write(xml_path, "apple_health_export/export.xml")
        os.remove(xml_path)
    print(f"{args.out}: {written / 1e6:.0f} MB of XML, {records} records, {len(summaries)} days")


if __name__ == "__main__":
    main()
