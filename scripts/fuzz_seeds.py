#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/) from the fixtures, at run time: nothing here is kept in git.

Usage: fuzz_seeds.py FIXTURES_DIR OUT_DIR  ->  OUT_DIR/<Target>/seed-*
"""
import io
import os
import re
import struct
import sys
import zipfile

fixtures, out = sys.argv[1], sys.argv[2]


def write(target, name, data):
    directory = os.path.join(out, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "seed-" + name), "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode())


BUILT_IN = b"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
]>
<HealthData locale="en_US">
 <ExportDate value="2024-05-02 08:00:00 +0200"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-01-01" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" sourceVersion="17.4" device="&lt;&lt;HKDevice: 0x1&gt;, name:iPhone&gt;" unit="count" creationDate="2024-05-01 10:05:00 +0200" startDate="2024-05-01 10:00:00 +0200" endDate="2024-05-01 10:05:00 +0200" value="120"/>
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2024-05-01 10:00:00 +0200" endDate="2024-05-01 10:00:00 +0200" value="61">
  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
 </Record>
 <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="2024-05-01 01:00:00 +0200" endDate="2024-05-01 02:00:00 +0200" value="HKCategoryValueSleepAnalysisAsleepREM"/>
 <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff" startDate="2024-05-01 09:00:00 +0200" endDate="2024-05-01 09:00:00 +0200">
  <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Cuff" unit="mmHg" startDate="2024-05-01 09:00:00 +0200" endDate="2024-05-01 09:00:00 +0200" value="120"/>
 </Correlation>
 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2024-05-01 07:00:00 +0200" endDate="2024-05-01 07:30:00 +0200">
  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2024-05-01 07:00:00 +0200" endDate="2024-05-01 07:30:00 +0200" sum="5.1" unit="km"/>
 </Workout>
 <ActivitySummary dateComponents="2024-05-01" activeEnergyBurned="400" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="kcal"/>
</HealthData>
"""


def xml_documents():
    """Small, valid exports: each fixture's prolog and DOCTYPE with a few of its elements (and a built-in one, so
    that the seeds exist without the fixtures folder)."""
    docs = {"built-in.xml": BUILT_IN}
    if not os.path.isdir(fixtures):
        return docs
    for name in sorted(os.listdir(fixtures)):
        path = os.path.join(fixtures, name)
        if name.endswith(".xml"):
            docs[name] = open(path, "rb").read()
        elif name.endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                for entry in archive.namelist():
                    if entry.endswith("export.xml") and "__MACOSX" not in entry:
                        docs[name + "-export.xml"] = archive.read(entry)
    return docs


docs = xml_documents()
element = re.compile(rb"<(Record|Workout|Correlation|ActivitySummary|ExportDate|Me)\b.*?(?:/>|</\1>)", re.S)
units, dates = set(), set()
for name, data in docs.items():
    start = data.find(b"<HealthData")
    prolog = data[: data.find(b">", start) + 1] if start >= 0 else b"<HealthData>"
    elements = [m.group(0) for m in element.finditer(data)]
    kinds = {}
    for chunk in elements:
        kind = chunk.split()[0]
        kinds.setdefault(kind, []).append(chunk)
        for unit in re.findall(rb'unit="([^"]*)"', chunk):
            units.add(unit)
        for date in re.findall(rb'(?:startDate|endDate|creationDate|value)="(\d{4}-\d\d-\d\d [^"]*)"', chunk):
            dates.add(date)
    picked = []
    for group in kinds.values():
        picked += group[:3]
    small = prolog + b"\n" + b"\n".join(picked[:24]) + b"\n</HealthData>\n"
    for target in ("FuzzXMLScanner", "FuzzExportParser"):
        write(target, name + ".xml", small[:48_000])
    # The DOCTYPE alone (the scanner's subset handling) and a truncated document.
    write("FuzzXMLScanner", name + "-head.xml", data[:4096])

# Units and dates: one per line-less input; "a|b" pairs exercise conversion.
unit_list = sorted(units)[:40] or [b"count"]
for index, unit in enumerate(unit_list):
    write("FuzzUnitsAndDates", "unit-%d" % index, unit)
    write("FuzzUnitsAndDates", "pair-%d" % index, unit + b"|" + unit_list[(index + 1) % len(unit_list)])
for index, date in enumerate(sorted(dates)[:40]):
    write("FuzzUnitsAndDates", "date-%d" % index, date)
for index, text in enumerate([b"2026-01-09T12:00:00Z", b"2026-01-09T12:00:00.123+01:00", b"7d", b"today",
                              b"Europe/Paris", b"mmol<180.1558800000541>/L|mg/dL", b"count/min|Hz", b"kcal|kJ"]):
    write("FuzzUnitsAndDates", "extra-%d" % index, text)


# DNS: a PTR question and a full answer (PTR, SRV, TXT, A), as the responder and browser exchange them.
def name(labels):
    return b"".join(bytes([len(label)]) + label for label in labels) + b"\0"


service = [b"_healthsync", b"_tcp", b"local"]
instance = [b"HealthBridge on studio"] + service
host = [b"studio", b"local"]
question = struct.pack(">HHHHHH", 0, 0, 1, 0, 0, 0) + name(service) + struct.pack(">HH", 12, 1)
write("FuzzDNSMessage", "query", question)


def record(owner, rtype, data, ttl=120):
    return name(owner) + struct.pack(">HHIH", rtype, 0x8001, ttl, len(data)) + data


txt = b"".join(bytes([len(entry)]) + entry for entry in [b"fp=0123456789abcdef", b"api=1", b"="])
answers = [record(service, 12, name(instance)),
           record(instance, 33, struct.pack(">HHH", 0, 0, 8443) + name(host)),
           record(instance, 16, txt),
           record(host, 1, bytes([192, 168, 1, 10])),
           record(host, 28, bytes(15) + b"\1")]
write("FuzzDNSMessage", "answer", struct.pack(">HHHHHH", 0, 0x8400, 0, len(answers), 0, 0) + b"".join(answers))
# Name compression: the SRV target points back into the message.
compressed = struct.pack(">HHHHHH", 0, 0x8400, 0, 1, 0, 0) + name(service) + struct.pack(">HHIH", 12, 1, 120, 2) + b"\xc0\x0c"
write("FuzzDNSMessage", "compressed", compressed)

# Export API requests: selector byte (0 query, 1 data body, 2 pair body, 3 cursor, 4 Authorization header) + text.
requests = [
    b"\0types=stepCount,heartRate&start=2026-01-08T00:00:00Z&end=2026-01-10T00:00:00Z&limit=50",
    b"\0types=sleepAnalysis&start=2026-01-08T00:00:00%2B01:00&end=2026-01-10T00:00:00Z&cursor=abc",
    b'\1{"types":["stepCount"],"start":"2026-01-08T00:00:00Z","end":"2026-01-10T00:00:00Z","limit":10}',
    b'\2{"code":"ABCD-EFGH","clientName":"phone"}',
    b"\3eyJ0IjowLCJzIjoiYWJjIiwiaCI6ImRlZiJ9",
    b"\4Bearer 0123456789abcdefghijklmnopqrstuvwxyzABCDEFG",
]
for index, request in enumerate(requests):
    write("FuzzExportRequest", "request-%d" % index, request)

# Health Auto Export bodies: the receiver's own test payloads (written for this project, not fixtures).
hae = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "HealthAutoExportTests", "Fixtures")
for entry in sorted(os.listdir(hae)) if os.path.isdir(hae) else []:
    if entry.endswith(".json"):
        with open(os.path.join(hae, entry), "rb") as handle:
            body = handle.read()
            write("FuzzHealthAutoExport", entry[:-5], body)
            write("FuzzIngestService", entry[:-5], body)
minimal = b'{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-05-01 10:00:00 +0200","qty":12,"source":"iPhone|Watch"}]}]}}'
write("FuzzHealthAutoExport", "minimal", minimal)
write("FuzzIngestService", "minimal", minimal)
# The night of issue 21's first finding: huge totals, no end.
write("FuzzIngestService", "huge-night", b'{"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[{"date":"2024-03-05","core":1e300,"sleepStart":"2024-03-04 23:10:00 +0100"}]}]}}')

# FuzzWriteService: 24-byte records (type index, unit index, category index, padding, value bits, start bits).
import struct
def record(type_index, unit_index, value, start, category=0):
    return bytes([type_index % 256, unit_index % 256, category % 256]) + bytes(5) + struct.pack(">d", value) + struct.pack(">d", start)
write("FuzzWriteService", "plain", record(0, 1, 1200, 1_714_550_400) + record(3, 2, 70.5, 1_714_554_000))
write("FuzzWriteService", "extremes", record(7, 4, 1e300, 1e300) + record(9, 0, float("nan"), -1e12) + record(11, 5, float("inf"), 0))
print("seeds written to", out)


# FuzzZipDirectory: the fixture zips, and small zips with stored, deflated and ZIP64 entries.
for name in (sorted(os.listdir(fixtures)) if os.path.isdir(fixtures) else []):
    if name.endswith(".zip"):
        with open(os.path.join(fixtures, name), "rb") as handle:
            data = handle.read()
        if len(data) <= 1 << 20:
            write("FuzzZipDirectory", name, data)
for label, zip64 in (("small", False), ("zip64", True)):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for entry, method in (("apple_health_export/workout-routes/r.gpx", zipfile.ZIP_DEFLATED),
                              ("apple_health_export/stored.txt", zipfile.ZIP_STORED)):
            info = zipfile.ZipInfo(entry)
            info.compress_type = method
            with archive.open(info, "w", force_zip64=zip64) as handle:
                handle.write(b"<gpx><trk><trkseg>" + b'<trkpt lat="48.1" lon="2.3"><time>2024-05-01T07:30:00Z</time></trkpt>' * 8
                             + b"</trkseg></trk></gpx>")
    write("FuzzZipDirectory", label + ".zip", buffer.getvalue())
