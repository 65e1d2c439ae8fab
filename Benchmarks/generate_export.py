#!/usr/bin/env python3
"""Generate synthetic Apple Health exports in the byte layout the Health app writes.

Two modes:

  generate_export.py --sample OUT_DIR [--seed N] [--verify]
      Writes the small bundled sample: OUT_DIR/export.xml, OUT_DIR/export.zip (with an
      export_cda.xml stub placed first and the GPX routes) and OUT_DIR/expected.json.

  generate_export.py --size-mb N -o PATH [--seed N] [--expected PATH] [--verify] [--quiet]
      Writes a large export.xml of about N MB (1 MB = 10^6 bytes) for benchmarks, optionally
      with an expected.json holding the counts the generator tracked while writing.

  generate_export.py --size-mb N --bundle OUT_DIR [--gpx-mb M] [--seed N] [--quiet]
      The same export.xml with four workouts appended, in a whole export folder and zip with
      GPX routes and ECG recordings (generate_bundle.py).

Layout (the Health app's own): UTF-8, LF, one space of indentation per nesting level,
`/>` without a space, attributes in the Health app's emitted order, absent attributes omitted,
`& < > "` escaped in attribute values and everything else raw UTF-8, dates
`YYYY-MM-DD HH:MM:SS +HHMM`, record values formatted like C `%g` and workout durations like
`%.16g`. The internal DTD below is this project's own declaration set for what the generator
emits (it describes the data, unlike Apple's); it starts with the version comment readers use.

`--verify` re-reads the written file with Python's expat and checks it against the counts the
generator computed; the sample mode also cross-checks them against its in-memory tree.

Python 3.11 standard library only. Output is a pure function of the arguments and the seed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import sys
import time
import zipfile
from xml.parsers import expat

EXPORT_VERSION = 14
LOCALE = "en_US"
MB = 1_000_000

# ----------------------------------------------------------------------------------------------
# DTD: (element, content model, [(attribute, "REQUIRED" | "IMPLIED")]) in emitted attribute order.

_EYE_ATTRS = []
for _n in ("sphere", "cylinder", "axis", "add", "vertex", "prismAmount", "prismAngle", "farPD",
           "nearPD", "baseCurve", "diameter"):
    _EYE_ATTRS += [(_n, "IMPLIED"), (_n + "Unit", "IMPLIED")]

DTD_TABLE = [
    ("HealthData",
     "(ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)",
     [("locale", "REQUIRED")]),
    ("ExportDate", "EMPTY", [("value", "REQUIRED")]),
    ("Me", "EMPTY", [
        ("HKCharacteristicTypeIdentifierDateOfBirth", "REQUIRED"),
        ("HKCharacteristicTypeIdentifierBiologicalSex", "REQUIRED"),
        ("HKCharacteristicTypeIdentifierBloodType", "REQUIRED"),
        ("HKCharacteristicTypeIdentifierFitzpatrickSkinType", "REQUIRED"),
        ("HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse", "REQUIRED")]),
    ("Record", "((MetadataEntry|HeartRateVariabilityMetadataList)*)", [
        ("type", "REQUIRED"), ("sourceName", "REQUIRED"), ("sourceVersion", "IMPLIED"),
        ("device", "IMPLIED"), ("unit", "IMPLIED"), ("creationDate", "IMPLIED"),
        ("startDate", "REQUIRED"), ("endDate", "REQUIRED"), ("value", "IMPLIED")]),
    ("MetadataEntry", "EMPTY", [("key", "REQUIRED"), ("value", "REQUIRED")]),
    ("HeartRateVariabilityMetadataList", "(InstantaneousBeatsPerMinute*)", []),
    ("InstantaneousBeatsPerMinute", "EMPTY", [("bpm", "REQUIRED"), ("time", "REQUIRED")]),
    ("Correlation", "((MetadataEntry|Record)*)", [
        ("type", "REQUIRED"), ("sourceName", "REQUIRED"), ("sourceVersion", "IMPLIED"),
        ("device", "IMPLIED"), ("creationDate", "IMPLIED"), ("startDate", "REQUIRED"),
        ("endDate", "REQUIRED")]),
    ("Workout", "((MetadataEntry|WorkoutEvent|WorkoutActivity|WorkoutStatistics|WorkoutRoute)*)", [
        ("workoutActivityType", "REQUIRED"), ("duration", "IMPLIED"), ("durationUnit", "IMPLIED"),
        ("totalDistance", "IMPLIED"), ("totalDistanceUnit", "IMPLIED"),
        ("totalEnergyBurned", "IMPLIED"), ("totalEnergyBurnedUnit", "IMPLIED"),
        ("sourceName", "REQUIRED"), ("sourceVersion", "IMPLIED"), ("device", "IMPLIED"),
        ("creationDate", "IMPLIED"), ("startDate", "REQUIRED"), ("endDate", "REQUIRED")]),
    ("WorkoutEvent", "(MetadataEntry*)", [
        ("type", "REQUIRED"), ("date", "REQUIRED"), ("duration", "IMPLIED"),
        ("durationUnit", "IMPLIED")]),
    ("WorkoutActivity", "((WorkoutEvent|WorkoutStatistics|MetadataEntry)*)", [
        ("uuid", "REQUIRED"), ("startDate", "REQUIRED"), ("endDate", "IMPLIED"),
        ("duration", "IMPLIED"), ("durationUnit", "IMPLIED")]),
    ("WorkoutStatistics", "EMPTY", [
        ("type", "REQUIRED"), ("startDate", "REQUIRED"), ("endDate", "REQUIRED"),
        ("average", "IMPLIED"), ("minimum", "IMPLIED"), ("maximum", "IMPLIED"),
        ("sum", "IMPLIED"), ("unit", "IMPLIED")]),
    ("WorkoutRoute", "((MetadataEntry|FileReference)*)", [
        ("sourceName", "REQUIRED"), ("sourceVersion", "IMPLIED"), ("device", "IMPLIED"),
        ("creationDate", "IMPLIED"), ("startDate", "REQUIRED"), ("endDate", "REQUIRED")]),
    ("FileReference", "EMPTY", [("path", "REQUIRED")]),
    ("ActivitySummary", "EMPTY", [
        ("dateComponents", "REQUIRED"), ("activeEnergyBurned", "IMPLIED"),
        ("activeEnergyBurnedGoal", "IMPLIED"), ("activeEnergyBurnedUnit", "IMPLIED"),
        ("appleMoveTime", "IMPLIED"), ("appleMoveTimeGoal", "IMPLIED"),
        ("appleExerciseTime", "IMPLIED"), ("appleExerciseTimeGoal", "IMPLIED"),
        ("appleStandHours", "IMPLIED"), ("appleStandHoursGoal", "IMPLIED")]),
    ("ClinicalRecord", "EMPTY", [
        ("type", "REQUIRED"), ("identifier", "REQUIRED"), ("sourceName", "REQUIRED"),
        ("sourceURL", "REQUIRED"), ("fhirVersion", "REQUIRED"), ("receivedDate", "REQUIRED"),
        ("resourceFilePath", "REQUIRED")]),
    ("Audiogram", "((MetadataEntry|SensitivityPoint)*)", [
        ("type", "REQUIRED"), ("sourceName", "REQUIRED"), ("sourceVersion", "IMPLIED"),
        ("device", "IMPLIED"), ("creationDate", "IMPLIED"), ("startDate", "REQUIRED"),
        ("endDate", "REQUIRED")]),
    ("SensitivityPoint", "EMPTY", [
        ("frequencyValue", "REQUIRED"), ("frequencyUnit", "REQUIRED"),
        ("leftEarValue", "IMPLIED"), ("leftEarUnit", "IMPLIED"),
        ("leftEarMasked", "IMPLIED"), ("leftEarClampingRangeLowerBound", "IMPLIED"),
        ("leftEarClampingRangeUpperBound", "IMPLIED"),
        ("rightEarValue", "IMPLIED"), ("rightEarUnit", "IMPLIED"),
        ("rightEarMasked", "IMPLIED"), ("rightEarClampingRangeLowerBound", "IMPLIED"),
        ("rightEarClampingRangeUpperBound", "IMPLIED")]),
    ("VisionPrescription", "((RightEye|LeftEye|Attachment|MetadataEntry)*)", [
        ("type", "REQUIRED"), ("dateIssued", "REQUIRED"), ("expirationDate", "IMPLIED"),
        ("brand", "IMPLIED")]),
    ("RightEye", "EMPTY", _EYE_ATTRS),
    ("LeftEye", "EMPTY", _EYE_ATTRS),
    ("Attachment", "EMPTY", [("identifier", "IMPLIED")]),
]
DTD_ATTRS = {name: [a for a, _ in attrs] for name, _, attrs in DTD_TABLE}


def dtd_text() -> str:
    """The internal subset, from the newline after `[` to the `>` + newline before `]>`."""
    lines = ["", f"<!-- HealthKit Export Version: {EXPORT_VERSION} -->"]
    for name, model, attrs in DTD_TABLE:
        lines.append(f"<!ELEMENT {name} {model}>")
        if attrs:
            width = max(len(a) for a, _ in attrs)
            lines.append(f"<!ATTLIST {name}")
            lines += [f"  {a.ljust(width)} CDATA #{kind}" for a, kind in attrs]
            lines.append(">")
    return "\n".join(lines) + "\n"


def prolog() -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE HealthData [' + dtd_text()
            + f']>\n<HealthData locale="{LOCALE}">\n')


# ----------------------------------------------------------------------------------------------
# Shared helpers

_ESC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def esc(s: str) -> str:
    return s.translate(_ESC)


def g(x: float) -> str:
    """C `%g`: record, statistics and summary values."""
    return "%g" % x


def g16(x: float) -> str:
    """C `%.16g` (NSNumber description): workout, event and activity durations."""
    return "%.16g" % x


def device_string(addr: int, name, manufacturer=None, model=None, hardware=None, software=None,
                  local_identifier=None, creation=None) -> str:
    """`-[HKDevice description]` (unescaped)."""
    parts = [f"<<HKDevice: 0x{addr:09x}>"]
    for key, value in (("name", name), ("manufacturer", manufacturer), ("model", model),
                       ("hardware", hardware), ("software", software),
                       ("localIdentifier", local_identifier), ("creation date", creation)):
        if value is not None:
            parts.append(f"{key}:{value}")
    return ", ".join(parts) + ">"


def rand_addr(rng: random.Random) -> int:
    # 16-byte aligned heap-looking addresses, 9 hex digits like 0x282e3a260.
    return (rng.choice((0x2, 0x3, 0x5, 0x8, 0xc)) << 32) | (rng.getrandbits(28) << 4)



class FreshAddressPool:
    """Indexable like a list of escaped device strings; every lookup writes a new address."""

    def __init__(self, rng: random.Random, template: str):
        head = "<<HKDevice: 0x000000000>"
        assert template.startswith(head)
        self.rng = rng
        self.tail = esc(template[len(head):])

    def __getitem__(self, _index: int) -> str:
        return f"&lt;&lt;HKDevice: 0x{rand_addr(self.rng):09x}&gt;{self.tail}"

def rand_uuid(rng: random.Random) -> str:
    h = "%032X" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89AB'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


def eu_dst_bounds(year: int):
    """UTC epoch seconds of the EU summer-time start and end (last Sundays, 01:00 UTC)."""
    def last_sunday(month):
        d = dt.date(year, month, 31)
        return d - dt.timedelta(days=(d.weekday() + 1) % 7)
    a = last_sunday(3)
    b = last_sunday(10)
    epoch = dt.date(1970, 1, 1)
    return ((a - epoch).days * 86400 + 3600, (b - epoch).days * 86400 + 3600)


_DST_CACHE: dict = {}


def paris_offset(t: int) -> int:
    """Europe/Paris UTC offset in seconds at epoch t (the user's real, DST-aware zone)."""
    year = (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=t)).year
    b = _DST_CACHE.get(year)
    if b is None:
        b = _DST_CACHE[year] = eu_dst_bounds(year)
    return 7200 if b[0] <= t < b[1] else 3600


def hrv_time(local_seconds: float) -> str:
    """en_US time of day with centiseconds, e.g. `6:14:48.94 PM`, as HRV beats write it."""
    cs = int(round(local_seconds * 100)) % (86400 * 100)
    s, c = divmod(cs, 100)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    ampm = "AM" if h < 12 else "PM"
    h12 = h % 12 or 12
    return f"{h12}:{m:02d}:{sec:02d}.{c:02d} {ampm}"


def route_stamp(local: dt.datetime) -> tuple:
    """(`2024-11-30_4.31pm`, `2024-11-30 4:31pm`) for GPX file and track names."""
    h12 = local.hour % 12 or 12
    ampm = "am" if local.hour < 12 else "pm"
    return (f"{local:%Y-%m-%d}_{h12}.{local.minute:02d}{ampm}",
            f"{local:%Y-%m-%d} {h12}:{local.minute:02d}{ampm}")


_DEVICE_KEYS = re.compile(
    r", (name|manufacturer|model|hardware|firmware|software|localIdentifier|UDIDeviceIdentifier|creation date):")


def device_model(device: str | None):
    if not device:
        return None
    pieces = _DEVICE_KEYS.split(device)
    for i in range(1, len(pieces) - 1, 2):
        if pieces[i] == "model":
            return pieces[i + 1].rstrip(">")
    return None


_ORD_CACHE: dict = {}


def instant(s: str) -> int:
    """Unix seconds of `YYYY-MM-DD HH:MM:SS ±HHMM`."""
    day = s[:10]
    o = _ORD_CACHE.get(day)
    if o is None:
        o = _ORD_CACHE[day] = (dt.date.fromisoformat(day) - dt.date(1970, 1, 1)).days * 86400
    off = (int(s[21:23]) * 3600 + int(s[23:25]) * 60) * (-1 if s[20] == "-" else 1)
    return o + int(s[11:13]) * 3600 + int(s[14:16]) * 60 + int(s[17:19]) - off


def number(v: str):
    try:
        return int(v)
    except ValueError:
        f = float(v)
        return int(f) if f.is_integer() else f


EXPECTED_KEYS = [
    "recordCount", "recordsByType", "workoutCount", "workoutsByActivity", "correlationCount",
    "correlationRecordCount", "activitySummaryCount", "clinicalRecordCount", "audiogramCount",
    "visionPrescriptionCount", "metadataEntryCount", "instantaneousBpmCount", "workoutEventCount",
    "workoutStatisticsCount", "workoutActivityCount", "workoutRouteCount", "firstDate", "lastDate",
    "exportVersion", "locale", "exportDate", "elementCount", "stepsByDay", "watchStepsByDay",
]

STEP_TYPE = "HKQuantityTypeIdentifierStepCount"


class Tally:
    """Accumulates the expected.json counts; fed either from the generator or from a parse."""

    def __init__(self):
        self.records_by_type: dict = {}
        self.workouts_by_activity: dict = {}
        self.n = dict(correlationCount=0, correlationRecordCount=0, activitySummaryCount=0,
                      clinicalRecordCount=0, audiogramCount=0, visionPrescriptionCount=0,
                      metadataEntryCount=0, instantaneousBpmCount=0, workoutEventCount=0,
                      workoutStatisticsCount=0, workoutActivityCount=0, workoutRouteCount=0,
                      elementCount=0)
        self.first = None  # (instant, string)
        self.last = None
        self.steps: dict = {}
        self.watch_steps: dict = {}
        self.export_version = None
        self.locale = None
        self.export_date = None

    def top_record(self, rtype, start, end, value, device):
        self.records_by_type[rtype] = self.records_by_type.get(rtype, 0) + 1
        si, ei = instant(start), instant(end)
        if self.first is None or si < self.first[0]:
            self.first = (si, start)
        if self.last is None or ei > self.last[0]:
            self.last = (ei, end)
        if rtype == STEP_TYPE and value is not None:
            self.add_steps(start[:10], number(value), device_model(device) == "Watch")

    def add_steps(self, day, v, watch):
        self.steps[day] = self.steps.get(day, 0) + v
        if watch:
            self.watch_steps[day] = self.watch_steps.get(day, 0) + v

    def result(self) -> dict:
        out = {
            "recordCount": sum(self.records_by_type.values()),
            "recordsByType": dict(sorted(self.records_by_type.items())),
            "workoutCount": sum(self.workouts_by_activity.values()),
            "workoutsByActivity": dict(sorted(self.workouts_by_activity.items())),
        }
        out.update(self.n)
        out["firstDate"] = self.first[1] if self.first else None
        out["lastDate"] = self.last[1] if self.last else None
        out["exportVersion"] = self.export_version
        out["locale"] = self.locale
        out["exportDate"] = self.export_date
        out["stepsByDay"] = dict(sorted(self.steps.items()))
        out["watchStepsByDay"] = dict(sorted(self.watch_steps.items()))
        return {k: out[k] for k in EXPECTED_KEYS}


def analyze(path: str, check_dtd: bool = True) -> dict:
    """Compute expected.json from the bytes of an export.xml with expat (independent check)."""
    tally = Tally()
    n = tally.n
    stack: list = []
    unknown: list = []
    version_re = re.compile(r"HealthKit Export Version:\s*(\d+)")

    def start(name, attrs):
        n["elementCount"] += 1
        parent = stack[-1] if stack else None
        if check_dtd:
            declared = DTD_ATTRS.get(name)
            if declared is None or any(a not in declared for a in attrs):
                unknown.append((name, list(attrs)))
            elif list(attrs) != [a for a in declared if a in attrs]:
                unknown.append(("attribute order", name, list(attrs)))
        if name == "Record":
            if parent == "HealthData":
                tally.top_record(attrs["type"], attrs["startDate"], attrs["endDate"],
                                 attrs.get("value"), attrs.get("device"))
            else:
                n["correlationRecordCount"] += 1
        elif name == "MetadataEntry":
            n["metadataEntryCount"] += 1
        elif name == "InstantaneousBeatsPerMinute":
            n["instantaneousBpmCount"] += 1
        elif name == "Workout":
            a = attrs["workoutActivityType"]
            tally.workouts_by_activity[a] = tally.workouts_by_activity.get(a, 0) + 1
        elif name == "WorkoutEvent":
            n["workoutEventCount"] += 1
        elif name == "WorkoutStatistics":
            n["workoutStatisticsCount"] += 1
        elif name == "WorkoutActivity":
            n["workoutActivityCount"] += 1
        elif name == "WorkoutRoute":
            n["workoutRouteCount"] += 1
        elif name == "Correlation":
            n["correlationCount"] += 1
        elif name == "ActivitySummary":
            n["activitySummaryCount"] += 1
        elif name == "ClinicalRecord":
            n["clinicalRecordCount"] += 1
        elif name == "Audiogram":
            n["audiogramCount"] += 1
        elif name == "VisionPrescription":
            n["visionPrescriptionCount"] += 1
        elif name == "HealthData":
            tally.locale = attrs.get("locale")
        elif name == "ExportDate":
            tally.export_date = attrs.get("value")
        stack.append(name)

    def end(name):
        stack.pop()

    def comment(text):
        m = version_re.search(text)
        if m and tally.export_version is None:
            tally.export_version = int(m.group(1))

    p = expat.ParserCreate()
    p.buffer_text = True
    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CommentHandler = comment
    with open(path, "rb") as f:
        while True:
            chunk = f.read(4 << 20)
            if not chunk:
                break
            p.Parse(chunk, False)
    p.Parse(b"", True)
    if unknown:
        raise SystemExit(f"undeclared or misordered attributes: {unknown[:5]}")
    return tally.result()


def write_json(path: str, data: dict):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")


def compare(a: dict, b: dict, what: str):
    if a != b:
        diffs = [k for k in EXPECTED_KEYS if a.get(k) != b.get(k)]
        for k in diffs:
            print(f"  {k}: {str(a.get(k))[:300]}\n  vs {str(b.get(k))[:300]}", file=sys.stderr)
        raise SystemExit(f"verification failed ({what}): {diffs}")


# ----------------------------------------------------------------------------------------------
# Sample mode: an explicit tree, serialized by one function.

class E:
    __slots__ = ("tag", "attrs", "children")

    def __init__(self, tag, attrs=(), children=()):
        self.tag = tag
        self.attrs = [(k, v) for k, v in attrs if v is not None]
        self.children = list(children)
        declared = DTD_ATTRS[tag]
        names = [k for k, _ in self.attrs]
        assert names == [a for a in declared if a in names], (tag, names)


def serialize(node: E, depth: int, out: list):
    ind = " " * depth
    attrs = "".join(f' {k}="{esc(v)}"' for k, v in node.attrs)
    if node.children:
        out.append(f"{ind}<{node.tag}{attrs}>\n")
        for c in node.children:
            serialize(c, depth + 1, out)
        out.append(f"{ind}</{node.tag}>\n")
    else:
        out.append(f"{ind}<{node.tag}{attrs}/>\n")


def tree_tally(root: E) -> dict:
    """expected.json from the in-memory tree (cross-check of analyze())."""
    tally = Tally()
    n = tally.n
    tally.export_version = EXPORT_VERSION
    tally.locale = dict(root.attrs)["locale"]
    kind_keys = {"MetadataEntry": "metadataEntryCount", "InstantaneousBeatsPerMinute": "instantaneousBpmCount",
                 "WorkoutEvent": "workoutEventCount", "WorkoutStatistics": "workoutStatisticsCount",
                 "WorkoutActivity": "workoutActivityCount", "WorkoutRoute": "workoutRouteCount",
                 "Correlation": "correlationCount", "ActivitySummary": "activitySummaryCount",
                 "ClinicalRecord": "clinicalRecordCount", "Audiogram": "audiogramCount",
                 "VisionPrescription": "visionPrescriptionCount"}

    def walk(node, parent):
        n["elementCount"] += 1
        a = dict(node.attrs)
        if node.tag == "Record":
            if parent == "HealthData":
                tally.top_record(a["type"], a["startDate"], a["endDate"], a.get("value"), a.get("device"))
            else:
                n["correlationRecordCount"] += 1
        elif node.tag == "Workout":
            w = a["workoutActivityType"]
            tally.workouts_by_activity[w] = tally.workouts_by_activity.get(w, 0) + 1
        elif node.tag == "ExportDate":
            tally.export_date = a["value"]
        elif node.tag in kind_keys:
            n[kind_keys[node.tag]] += 1
        for c in node.children:
            walk(c, node.tag)

    walk(root, None)
    return tally.result()


def build_sample(rng: random.Random):
    """Returns (root element, {gpx name: bytes}, export_cda bytes)."""
    WATCH = "Mikian’s Apple Watch"
    PHONE = "Mikian’s iPhone"
    routes: dict = {}

    def watch_dev(creation=False):
        return device_string(rand_addr(rng), "Apple Watch", "Apple Inc.", "Watch", "Watch6,2", "10.1",
                             creation="2023-10-02 18:04:11 +0000" if creation else None)

    def phone_dev(creation=False):
        return device_string(rand_addr(rng), "iPhone", "Apple Inc.", "iPhone", "iPhone13,2", "17.1",
                             creation="2024-08-31 17:17:55 +0000" if creation else None)

    def withings_dev():
        # A device name with a comma inside it, as real devices have.
        return device_string(rand_addr(rng), "Withings BPM Connect, Wi-Fi", "Withings", "BPM Connect",
                             local_identifier="00:24:e4:7a:1b:2c")

    def d(local: str, off: str = "+0100") -> str:
        return f"{local} {off}"

    def shift(s: str, seconds: int) -> str:
        t = dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S %z") + dt.timedelta(seconds=seconds)
        return t.strftime("%Y-%m-%d %H:%M:%S ") + s[20:]

    def meta(key, value):
        return E("MetadataEntry", [("key", key), ("value", value)])

    def rec(rtype, source, version, device, unit, start, end, value, children=(), created_after=37):
        return E("Record", [("type", rtype), ("sourceName", source), ("sourceVersion", version),
                            ("device", device), ("unit", unit),
                            ("creationDate", shift(end, created_after)), ("startDate", start),
                            ("endDate", end), ("value", value)], children)

    Q = "HKQuantityTypeIdentifier"
    C = "HKCategoryTypeIdentifier"
    records: list = []

    # -- StepCount: iPhone and Watch overlapping on the same days, a gap, a third source without
    #    device, and days written in +0200 and -0500 (one sample each just across local midnight).
    steps = [
        # 2024-11-28 (+0100): morning walk seen by both, partially overlapping intervals.
        (PHONE, "2024-11-28 07:58:12", "2024-11-28 08:07:40", 812, "+0100"),
        (WATCH, "2024-11-28 07:59:01", "2024-11-28 08:04:55", 533, "+0100"),
        (WATCH, "2024-11-28 08:04:55", "2024-11-28 08:11:20", 571, "+0100"),
        (PHONE, "2024-11-28 08:07:40", "2024-11-28 08:10:02", 204, "+0100"),
        ("Pedometer++", "2024-11-28 08:00:00", "2024-11-28 08:15:00", 1190, "+0100"),
        # lunch: phone only (watch charging)
        (PHONE, "2024-11-28 12:31:44", "2024-11-28 12:40:09", 655, "+0100"),
        (PHONE, "2024-11-28 12:40:09", "2024-11-28 12:44:30", 301, "+0100"),
        # afternoon: watch only (phone on the desk)
        (WATCH, "2024-11-28 15:02:10", "2024-11-28 15:03:10", 88, "+0100"),
        (WATCH, "2024-11-28 15:03:10", "2024-11-28 15:09:47", 640, "+0100"),
        # evening: both, watch interval inside the phone's
        (PHONE, "2024-11-28 18:20:00", "2024-11-28 18:34:51", 1432, "+0100"),
        (WATCH, "2024-11-28 18:22:13", "2024-11-28 18:30:02", 802, "+0100"),
        ("Pedometer++", "2024-11-28 18:15:00", "2024-11-28 18:30:00", 1010, "+0100"),
        # 2024-11-29 (+0100): both, then a gap of several hours, then both again
        (PHONE, "2024-11-29 09:10:31", "2024-11-29 09:19:02", 777, "+0100"),
        (WATCH, "2024-11-29 09:10:58", "2024-11-29 09:16:12", 498, "+0100"),
        (WATCH, "2024-11-29 09:16:12", "2024-11-29 09:21:40", 540, "+0100"),
        (PHONE, "2024-11-29 17:45:00", "2024-11-29 17:52:19", 690, "+0100"),
        (WATCH, "2024-11-29 17:44:30", "2024-11-29 17:53:01", 801, "+0100"),
        # 2024-11-30 (+0100): short samples around the run
        (PHONE, "2024-11-30 16:02:11", "2024-11-30 16:05:30", 251, "+0100"),
        (WATCH, "2024-11-30 16:02:40", "2024-11-30 16:05:41", 287, "+0100"),
        # 2024-09-15 written at +0200; the first is 23:30 on the 14th at +0100.
        (WATCH, "2024-09-15 00:30:00", "2024-09-15 00:36:10", 402, "+0200"),
        (PHONE, "2024-09-15 10:12:00", "2024-09-15 10:20:44", 903, "+0200"),
        (WATCH, "2024-09-15 10:12:30", "2024-09-15 10:21:02", 921, "+0200"),
        # 2024-10-05 written at -0500; the last is already the 6th in UTC and at +0100.
        (PHONE, "2024-10-05 09:00:05", "2024-10-05 09:06:55", 611, "-0500"),
        (WATCH, "2024-10-05 09:00:40", "2024-10-05 09:07:15", 640, "-0500"),
        ("Pedometer++", "2024-10-05 09:00:00", "2024-10-05 09:15:00", 700, "-0500"),
        (PHONE, "2024-10-05 22:30:00", "2024-10-05 22:41:17", 1004, "-0500"),
        # an old iPhone-only sample (iPhone 6s era), the earliest record of the file
        ("iPhone", "2016-03-12 08:41:09", "2016-03-12 08:47:51", 588, "+0100"),
    ]
    step_recs = []
    dist_recs = []
    for source, s, e, v, off in steps:
        start, end = d(s, off), d(e, off)
        if source == WATCH:
            dev, ver = watch_dev(creation=rng.random() < 0.3), "10.1"
        elif source == PHONE:
            dev, ver = phone_dev(creation=rng.random() < 0.5), "17.1"
        elif source == "iPhone":
            dev, ver = device_string(rand_addr(rng), "iPhone", "Apple Inc.", "iPhone", "iPhone8,1",
                                     "9.2.1"), "9.2.1"
        else:
            dev, ver = None, "5.3"
        step_recs.append(rec(Q + "StepCount", source, ver, dev, "count", start, end, str(v)))
        if source in (WATCH, PHONE) and off == "+0100" and s.startswith("2024-11-28 0"):
            dist_recs.append(rec(Q + "DistanceWalkingRunning", source, ver, dev, "km", start, end,
                                 g(round(v * 0.000731, 6))))
    records += step_recs + dist_recs

    # -- HeartRate (Watch), some with metadata
    hr = [("2024-11-28 07:01:12", 58, "1"), ("2024-11-28 08:05:33", 104, "2"),
          ("2024-11-28 13:47:50", 76, "0"), ("2024-11-29 09:15:00", 98, None),
          ("2024-11-30 16:20:41", 151, "2"), ("2024-11-30 16:41:07", 163, "2")]
    for s, bpm, ctx in hr:
        kids = [meta("HKMetadataKeyHeartRateMotionContext", ctx)] if ctx else []
        records.append(rec(Q + "HeartRate", WATCH, "10.1", watch_dev(), "count/min", d(s), d(s),
                           str(bpm), kids, created_after=193))
    records.append(rec(Q + "HeartRate", WATCH, "10.1", watch_dev(), "count/min",
                       d("2024-09-15 00:33:19", "+0200"), d("2024-09-15 00:33:19", "+0200"), "64",
                       [meta("HKMetadataKeyHeartRateMotionContext", "1"), meta("HKTimeZone", "Europe/Paris")]))

    # -- Energy, exercise, stand, respiratory, SpO2
    for s, e, v in (("2024-11-28 08:00:12", "2024-11-28 08:01:14", 4.391),
                    ("2024-11-28 08:01:14", "2024-11-28 08:02:16", 5.127),
                    ("2024-11-30 16:05:00", "2024-11-30 16:06:02", 12.4446),
                    ("2024-11-30 16:06:02", "2024-11-30 16:07:01", 13.1871)):
        records.append(rec(Q + "ActiveEnergyBurned", WATCH, "10.1", watch_dev(), "kcal", d(s), d(e), g(v)))
    for s, e, v in (("2024-11-28 07:45:18", "2024-11-28 08:02:40", 21.8814),
                    ("2024-11-28 08:02:40", "2024-11-28 08:20:07", 20.4137),
                    ("2024-11-30 16:00:00", "2024-11-30 16:30:00", 34.9871)):
        records.append(rec(Q + "BasalEnergyBurned", WATCH, "10.1", watch_dev(), "kcal", d(s), d(e), g(v)))
    for s, e in (("2024-11-28 08:03:00", "2024-11-28 08:04:00"), ("2024-11-28 08:04:00", "2024-11-28 08:05:00"),
                 ("2024-11-30 16:05:00", "2024-11-30 16:06:00")):
        records.append(rec(Q + "AppleExerciseTime", WATCH, "10.1", watch_dev(), "min", d(s), d(e), "1"))
    for s, e, v in (("2024-11-28 09:00:31", "2024-11-28 09:02:31", 2), ("2024-11-28 10:12:00", "2024-11-28 10:15:00", 3)):
        records.append(rec(Q + "AppleStandTime", WATCH, "10.1", watch_dev(), "min", d(s), d(e), str(v)))
    for s, v in (("2024-11-28 02:14:45", 14.5), ("2024-11-28 03:41:10", 13)):
        records.append(rec(Q + "RespiratoryRate", WATCH, "10.1", watch_dev(), "count/min", d(s),
                           shift(d(s), 1800), g(v)))
    records.append(rec(Q + "OxygenSaturation", WATCH, "10.1", watch_dev(), "%", d("2024-11-28 04:02:19"),
                       d("2024-11-28 04:02:19"), g(0.97),
                       [meta("HKMetadataKeyAppleDeviceCalibrated", "1"), meta("HKTimeZone", "Europe/Paris")]))

    # -- HRV SDNN with instantaneous beats (times in real local time; November = +0100)
    hrv_start = d("2024-11-28 23:12:04")
    beats = []
    t = 23 * 3600 + 12 * 60 + 4 + 0.37
    for _ in range(14):
        bpm = rng.randint(54, 66)
        beats.append(E("InstantaneousBeatsPerMinute", [("bpm", str(bpm)), ("time", hrv_time(t))]))
        t += 60.0 / bpm + rng.uniform(-0.05, 0.05)
    records.append(rec(Q + "HeartRateVariabilitySDNN", WATCH, "10.1", watch_dev(), "ms", hrv_start,
                       shift(hrv_start, 60), g(41.2274),
                       [E("HeartRateVariabilityMetadataList", [], beats)]))

    # -- manual and third-party quantities, odd units (`<` `>` in a unit, U+00B7)
    records.append(rec(Q + "BodyMass", "Health", "17.1", None, "kg", d("2024-11-29 07:30:00"),
                       d("2024-11-29 07:30:00"), g(77.1003), [meta("HKWasUserEntered", "1")]))
    records.append(rec(Q + "BloodGlucose", "Health", "17.1", None, "mmol<180.1558800000541>/L",
                       d("2024-11-29 07:35:00"), d("2024-11-29 07:35:00"), g(5.4),
                       [meta("HKWasUserEntered", "1"), meta("HKBloodGlucoseMealTime", "1")]))
    records.append(rec(Q + "VO2Max", WATCH, "10.1", watch_dev(), "mL/min·kg", d("2024-11-30 16:55:00"),
                       d("2024-11-30 16:55:00"), g(41.3582),
                       [meta("HKVO2MaxTestType", "2"), meta("HKMetadataKeySyncVersion", "1"),
                        meta("HKMetadataKeySyncIdentifier", rand_uuid(rng))]))

    # -- blood pressure and food: the correlation children are also top-level records
    bp = []
    for s, sys_v, dia_v in (("2024-11-28 07:20:41", 121, 79), ("2024-11-29 07:18:02", 127, 83)):
        dev = withings_dev()
        extra = [meta("Withings Link", "withings-bd2://timeline/measure?userid=2219871&date=" + s[:10])]
        dia = rec(Q + "BloodPressureDiastolic", "Health Mate", "6.3.1", dev, "mmHg", d(s), d(s), str(dia_v),
                  extra, created_after=12)
        sys_r = rec(Q + "BloodPressureSystolic", "Health Mate", "6.3.1", dev, "mmHg", d(s), d(s), str(sys_v),
                    extra, created_after=12)
        corr = E("Correlation", [("type", "HKCorrelationTypeIdentifierBloodPressure"), ("sourceName", "Health Mate"),
                                 ("sourceVersion", "6.3.1"), ("device", dev), ("creationDate", shift(d(s), 12)),
                                 ("startDate", d(s)), ("endDate", d(s))],
                 [meta("Withings Link", "withings-bd2://timeline/measure?userid=2219871&date=" + s[:10]), dia, sys_r])
        bp.append(corr)
        records += [dia, sys_r]
    food_s = d("2024-11-29 19:45:00")
    food_meta = meta("HKFoodType", 'Fish & chips <large>, "extra" vinegar')
    f1 = rec(Q + "DietaryEnergyConsumed", "Lose It!", "16.2.100", None, "kcal", food_s, food_s, g(842.5),
             [food_meta], created_after=3600)
    f2 = rec(Q + "DietaryProtein", "Lose It!", "16.2.100", None, "g", food_s, food_s, g(31.26),
             [food_meta], created_after=3600)
    records += [f1, f2]
    food = E("Correlation", [("type", "HKCorrelationTypeIdentifierFood"), ("sourceName", "Lose It!"),
                             ("sourceVersion", "16.2.100"), ("creationDate", shift(food_s, 3600)),
                             ("startDate", food_s), ("endDate", food_s)],
             [food_meta, meta("HKExternalUUID", "c0ffee00-1234-4abc-9def-00000000f00d"), f1, f2])

    records.append(rec("HKDataTypeSleepDurationGoal", "Health", "17.1", None, "hr", d("2024-11-01 00:00:00"),
                       d("2024-11-01 00:00:00"), "8"))

    # -- category records: sleep stages (Watch) and in bed (iPhone), stand hours, no-value ones
    sleep = [(PHONE, "2024-11-27 23:02:00", "2024-11-28 06:58:00", "InBed"),
             (WATCH, "2024-11-27 23:20:30", "2024-11-28 01:02:30", "AsleepCore"),
             (WATCH, "2024-11-28 01:02:30", "2024-11-28 01:48:00", "AsleepDeep"),
             (WATCH, "2024-11-28 01:48:00", "2024-11-28 01:53:30", "Awake"),
             (WATCH, "2024-11-28 01:53:30", "2024-11-28 03:10:00", "AsleepREM"),
             (WATCH, "2024-11-28 03:10:00", "2024-11-28 06:41:30", "AsleepCore"),
             ("Clock", "2024-11-28 23:10:00", "2024-11-29 06:45:00", "InBed")]
    for source, s, e, v in sleep:
        if source == WATCH:
            dev, ver, kids = watch_dev(), "10.1", [meta("HKTimeZone", "Europe/Paris")]
        elif source == PHONE:
            dev, ver, kids = phone_dev(), "17.1", []
        else:
            dev, ver, kids = None, None, []
        records.append(rec(C + "SleepAnalysis", source, ver, dev, None, d(s), d(e),
                           "HKCategoryValueSleepAnalysis" + v, kids, created_after=600))
    for h, v in ((8, "Stood"), (9, "Stood"), (10, "Idle")):
        s = f"2024-11-28 {h:02d}:00:00"
        records.append(rec(C + "AppleStandHour", WATCH, "10.1", watch_dev(), None, d(s), shift(d(s), 3600),
                           "HKCategoryValueAppleStandHour" + v, created_after=5))
    records.append(rec(C + "MindfulSession", WATCH, "10.1", watch_dev(), None, d("2024-11-28 21:00:04"),
                       d("2024-11-28 21:01:04"), None))
    records.append(rec(C + "HandwashingEvent", WATCH, "10.1", watch_dev(), None, d("2024-11-28 12:20:11"),
                       d("2024-11-28 12:20:34"), "HKCategoryValueNotApplicable"))

    # -- workouts
    workouts = []
    # legacy (2016, iOS 9 era): totals as attributes, no statistics, no duplicated block
    lw_s, lw_e = d("2016-03-12 08:40:02"), d("2016-03-12 09:14:40")
    workouts.append(E("Workout", [
        ("workoutActivityType", "HKWorkoutActivityTypeRunning"), ("duration", g16(32.51666666666667)),
        ("durationUnit", "min"), ("totalDistance", g16(5.012318204)), ("totalDistanceUnit", "km"),
        ("totalEnergyBurned", g16(351.2)), ("totalEnergyBurnedUnit", "kcal"), ("sourceName", "iPhone"),
        ("sourceVersion", "9.2.1"), ("creationDate", shift(lw_e, 4)), ("startDate", lw_s), ("endDate", lw_e)], [
        E("WorkoutEvent", [("type", "HKWorkoutEventTypePause"), ("date", d("2016-03-12 08:55:10"))]),
        E("WorkoutEvent", [("type", "HKWorkoutEventTypeResume"), ("date", d("2016-03-12 08:57:18"))]),
    ]))

    def stat(stype, s, e, unit, total=None, avg=None, mn=None, mx=None):
        return E("WorkoutStatistics", [("type", Q + stype), ("startDate", s), ("endDate", e),
                                       ("average", None if avg is None else g(avg)),
                                       ("minimum", None if mn is None else g(mn)),
                                       ("maximum", None if mx is None else g(mx)),
                                       ("sum", None if total is None else g(total)), ("unit", unit)])

    def event(etype, date, duration=None, kids=()):
        return E("WorkoutEvent", [("type", "HKWorkoutEventType" + etype), ("date", date),
                                  ("duration", None if duration is None else g16(duration)),
                                  ("durationUnit", None if duration is None else "min")], kids)

    def route(source, version, s, e, off_seconds, points, base):
        t_end = instant(e)
        local = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=t_end + off_seconds)
        file_stamp, name_stamp = route_stamp(local)
        fname = f"route_{file_stamp}.gpx"
        routes[fname] = make_gpx(rng, name_stamp, instant(s), t_end, points, base, "2024-12-03T19:15:42Z")
        return E("WorkoutRoute", [("sourceName", source), ("sourceVersion", version),
                                  ("creationDate", shift(e, 14)), ("startDate", s), ("endDate", e)],
                 [meta("HKMetadataKeySyncVersion", "2"), meta("HKMetadataKeySyncIdentifier", rand_uuid(rng)),
                  E("FileReference", [("path", "/workout-routes/" + fname)])])

    def modern(activity, source, version, dev, s, e, duration, block, body):
        attrs = [("workoutActivityType", "HKWorkoutActivityType" + activity), ("duration", g16(duration)),
                 ("durationUnit", "min"), ("sourceName", source), ("sourceVersion", version), ("device", dev),
                 ("creationDate", shift(e, 9)), ("startDate", s), ("endDate", e)]
        block_a = [meta(k, v) for k, v in block]
        block_b = [meta(k, v) for k, v in block]
        return E("Workout", attrs, block_a + body + block_b)

    # modern Running with interval steps (WorkoutActivity), pauses, a route, duplicated block
    rs, re_ = d("2024-11-30 16:04:51"), d("2024-11-30 16:46:02")
    mid = d("2024-11-30 16:24:51")
    body = [
        event("Segment", rs, 5.412090229988098), event("Segment", rs, 8.709871828556061),
        event("Segment", d("2024-11-30 16:10:16"), 5.523877620697021),
        event("Pause", d("2024-11-30 16:14:02")), event("Resume", d("2024-11-30 16:15:09")),
        event("Segment", d("2024-11-30 16:13:34"), 9.01022766828537),
        E("WorkoutActivity", [("uuid", rand_uuid(rng)), ("startDate", rs), ("endDate", mid),
                              ("duration", g16(18.88331666787465)), ("durationUnit", "min")], [
            event("Segment", rs, 5.412090229988098),
            stat("DistanceWalkingRunning", rs, mid, "km", total=3.41557),
            stat("HeartRate", rs, mid, "count/min", avg=146.372, mn=101, mx=158),
            meta("WOIntervalStepKeyPath", "0.0.0"), meta("WOIntervalStepSuccessful", "1")]),
        E("WorkoutActivity", [("uuid", rand_uuid(rng)), ("startDate", mid), ("endDate", re_),
                              ("duration", g16(21.18333333333333)), ("durationUnit", "min")], [
            stat("DistanceWalkingRunning", mid, re_, "km", total=4.02118),
            stat("HeartRate", mid, re_, "count/min", avg=159.114, mn=149, mx=171),
            meta("WOIntervalStepKeyPath", "0.1.0"), meta("WOIntervalStepSuccessful", "1")]),
        stat("StepCount", rs, re_, "count", total=6634.21),
        stat("ActiveEnergyBurned", rs, re_, "kcal", total=498.663),
        stat("BasalEnergyBurned", rs, re_, "kcal", total=68.0812),
        stat("DistanceWalkingRunning", rs, re_, "km", total=7.43675),
        stat("HeartRate", rs, re_, "count/min", avg=153.021, mn=101, mx=171),
        stat("RunningSpeed", rs, re_, "km/hr", avg=11.0321, mn=4.23661, mx=14.9012),
        route(WATCH, "10.1", rs, re_, 3600, 24, (48.8422, 2.2531)),
    ]
    workouts.append(modern("Running", WATCH, "10.1", watch_dev(creation=True), rs, re_, 40.06666666666667, [
        ("HKIndoorWorkout", "0"), ("HKElevationAscended", "4200 cm"), ("HKTimeZone", "Europe/Paris"),
        ("HKWeatherHumidity", "8100 %"), ("HKWeatherTemperature", "44.6 degF"),
        ("HKAverageMETs", "9.90571 kcal/hr·kg")], body))

    # modern pool Swimming: lap events carrying metadata, no route
    ss, se = d("2024-11-29 12:10:03"), d("2024-11-29 12:41:37")
    body = [
        event("Segment", ss, 2.565596975882848, [meta("HKSWOLFScore", "105.7867826223373")]),
        event("Lap", d("2024-11-29 12:10:10"), 1.096330326795578,
              [meta("HKSwimmingStrokeStyle", "4"), meta("HKSWOLFScore", "96.77981960773468")]),
        event("Lap", d("2024-11-29 12:11:25"), 1.313229093949,
              [meta("HKSwimmingStrokeStyle", "2"), meta("HKSWOLFScore", "114.79374563694")]),
        event("Lap", d("2024-11-29 12:13:01"), 1.284610609213511,
              [meta("HKSwimmingStrokeStyle", "4"), meta("HKSWOLFScore", "113.0766365528107")]),
        stat("DistanceSwimming", ss, se, "m", total=1250),
        stat("SwimmingStrokeCount", ss, se, "count", total=842),
        stat("ActiveEnergyBurned", ss, se, "kcal", total=301.482),
        stat("HeartRate", ss, se, "count/min", avg=128.66, mn=92, mx=149),
    ]
    workouts.append(modern("Swimming", WATCH, "10.1", watch_dev(), ss, se, 31.56666666666667, [
        ("HKLapLength", "25 m"), ("HKIndoorWorkout", "1"), ("HKTimeZone", "Europe/Paris"),
        ("HKSwimmingLocationType", "1"), ("HKAverageMETs", "6.52565 kcal/hr-kg")], body))

    # modern Walking written at +0200, route recorded by the iPhone (route source differs)
    ws, we = d("2024-09-15 10:11:48", "+0200"), d("2024-09-15 10:52:13", "+0200")
    body = [
        stat("StepCount", ws, we, "count", total=4390),
        stat("DistanceWalkingRunning", ws, we, "km", total=3.12409),
        stat("ActiveEnergyBurned", ws, we, "kcal", total=171.233),
        stat("HeartRate", ws, we, "count/min", avg=101.5, mn=84, mx=117),
        route(PHONE, "17.1", ws, we, 7200, 16, (48.8606, 2.3376)),
    ]
    workouts.append(modern("Walking", WATCH, "10.1", watch_dev(), ws, we, 40.41666666666666, [
        ("HKIndoorWorkout", "0"), ("HKTimeZone", "Europe/Paris"),
        ("HKWeatherTemperature", "71.6 degF")], body))

    # third-party Cycling written at -0500: no device, no metadata, statistics only
    cs, ce = d("2024-10-05 14:02:00", "-0500"), d("2024-10-05 15:18:44", "-0500")
    workouts.append(E("Workout", [
        ("workoutActivityType", "HKWorkoutActivityTypeCycling"), ("duration", g16(76.73333333333333)),
        ("durationUnit", "min"), ("sourceName", "Strava"), ("sourceVersion", "372.0.0"),
        ("creationDate", shift(ce, 300)), ("startDate", cs), ("endDate", ce)], [
        stat("DistanceCycling", cs, ce, "km", total=31.0472),
        stat("ActiveEnergyBurned", cs, ce, "kcal", total=688),
    ]))

    summaries = []
    for i, (energy, ex, stand) in enumerate(((388.211, 24, 11), (402.87, 31, 12), (612.415, 47, 13),
                                             (455.02, 38, 12), (801.337, 66, 14))):
        day = f"2024-11-{26 + i:02d}"
        summaries.append(E("ActivitySummary", [
            ("dateComponents", day), ("activeEnergyBurned", g(energy)), ("activeEnergyBurnedGoal", "500"),
            ("activeEnergyBurnedUnit", "kcal"), ("appleMoveTime", "0"), ("appleMoveTimeGoal", "0"),
            ("appleExerciseTime", str(ex)), ("appleExerciseTimeGoal", "30"), ("appleStandHours", str(stand)),
            ("appleStandHoursGoal", "12")]))

    clinical = [
        E("ClinicalRecord", [("type", "Immunization"), ("identifier", "Tdot1l.AKI5tXy3lOznArzgB"),
                             ("sourceName", "Hôpital Européen"),
                             ("sourceURL", "https://fhir.example-hospital.fr/api/FHIR/R4/Immunization/Tdot1l.AKI5tXy3lOznArzgB"),
                             ("fhirVersion", "4.0.1"), ("receivedDate", d("2024-10-21 09:12:44")),
                             ("resourceFilePath", "/clinical-records/Immunization-6A1F0D52-2E1C-4B8E-9D1A-3C0F5B7E8A21.json")]),
        E("ClinicalRecord", [("type", "Observation"), ("identifier", "T18EOBCL62BP9Ym5ddQzK9XS4fVSCMjR2n6K-7k8eOesB"),
                             ("sourceName", "Hôpital Européen"),
                             ("sourceURL", "https://fhir.example-hospital.fr/api/FHIR/DSTU2/Observation/T18EOBCL62BP9Ym5ddQzK9XS4fVSCMjR2n6K-7k8eOesB"),
                             ("fhirVersion", "1.0.2"), ("receivedDate", d("2024-10-21 09:12:45")),
                             ("resourceFilePath", "/clinical-records/Observation-0B3D9C6E-71A4-4F02-8E55-9A7C2D1E4F60.json")]),
    ]

    points = []
    for i, (hz, left, right) in enumerate(((250, 15.0459, 10.0452), (500, 12.6554, 10.6095),
                                           (1000, 10.1187, 5.0316), (2000, 15.4421, 10.5519),
                                           (4000, 25.2875, 20.0037), (8000, 30.6614, 25.9908))):
        extra = i >= 4  # iOS 18.1+ attributes on some points
        points.append(E("SensitivityPoint", [
            ("frequencyValue", str(hz)), ("frequencyUnit", "Hz"), ("leftEarValue", g(left)), ("leftEarUnit", "dBHL"),
            ("leftEarMasked", "0" if extra else None),
            ("leftEarClampingRangeLowerBound", g(left - 5) if extra else None),
            ("leftEarClampingRangeUpperBound", g(left + 5) if extra else None),
            ("rightEarValue", g(right)), ("rightEarUnit", "dBHL"),
            ("rightEarMasked", "1" if extra else None),
            ("rightEarClampingRangeLowerBound", None), ("rightEarClampingRangeUpperBound", None)]))
    au_s = d("2024-10-12 11:03:27")
    audiogram = E("Audiogram", [("type", "HKDataTypeIdentifierAudiogram"), ("sourceName", "Hearing Test"),
                                ("sourceVersion", "3092"), ("creationDate", shift(au_s, 70)),
                                ("startDate", au_s), ("endDate", au_s)],
                  [meta("HKMetadataKeySyncVersion", "1"), meta("HKExternalUUID", "479728a4-8e83-4de1-bb71-f75f5a691a6c"),
                   meta("HKMetadataKeySyncIdentifier", "479728a4-8e83-4de1-bb71-f75f5a691a6c")] + points)

    def eye(sphere, cyl, axis, add):
        return [("sphere", g(sphere)), ("sphereUnit", "D"), ("cylinder", g(cyl)), ("cylinderUnit", "D"),
                ("axis", str(axis)), ("axisUnit", "deg"), ("add", g(add)), ("addUnit", "D"),
                ("farPD", g(31.5)), ("farPDUnit", "mm")]
    vision = E("VisionPrescription", [("type", "HKVisionPrescriptionTypeGlasses"),
                                      ("dateIssued", d("2024-02-10 00:00:00")),
                                      ("expirationDate", d("2026-02-10 00:00:00"))],
               [E("RightEye", eye(-1.25, -0.5, 90, 0)), E("LeftEye", eye(-1.5, -0.25, 85, 0)),
                meta("HKMetadataKeySyncIdentifier", rand_uuid(rng))])

    me = E("Me", [("HKCharacteristicTypeIdentifierDateOfBirth", "1988-04-23"),
                  ("HKCharacteristicTypeIdentifierBiologicalSex", "HKBiologicalSexFemale"),
                  ("HKCharacteristicTypeIdentifierBloodType", "HKBloodTypeAPositive"),
                  ("HKCharacteristicTypeIdentifierFitzpatrickSkinType", "HKFitzpatrickSkinTypeIII"),
                  ("HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse", "None")])
    root = E("HealthData", [("locale", LOCALE)],
             [E("ExportDate", [("value", "2024-12-03 20:15:42 +0100")]), me] + records + bp + [food]
             + workouts + summaries + clinical + [audiogram, vision])

    cda = ('<?xml version="1.0"?>\n<?xml-stylesheet type="text/xsl" href="CDA.xsl"?>\n'
           '<ClinicalDocument xmlns="urn:hl7-org:v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
           ' <realmCode code="US"/>\n <typeId root="2.16.840.1.113883.1.3" extension="POCD_HD000040"/>\n'
           ' <id extension="Health Export CDA" root="1.1.1.1.1.1.1.1.1"/>\n <title>Health Data Export</title>\n'
           ' <effectiveTime value="20241203201542+0100"/>\n'
           '</ClinicalDocument>\n').encode("utf-8")
    return root, routes, cda


def make_gpx(rng, name_stamp, t0, t1, n, base, export_time_z) -> bytes:
    """A GPX 1.1 route in the Health app's layout, no trailing newline."""
    lat, lon = base
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" '
             'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 '
             'http://www.topografix.com/GPX/1/1/gpx.xsd">',
             "  <metadata>", f"    <time>{export_time_z}</time>", "  </metadata>", "  <trk>",
             f"    <name>Route {name_stamp}</name>", "    <trkseg>"]
    ele = 35.0 + rng.random() * 20
    course = rng.random() * 360
    for i in range(n):
        t = t0 + (t1 - t0) * i // max(1, n - 1)
        stamp = (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%SZ")
        lat += rng.uniform(-0.0009, 0.0011)
        lon += rng.uniform(-0.0008, 0.0013)
        ele += rng.uniform(-0.8, 0.9)
        course = (course + rng.uniform(-25, 25)) % 360
        lines.append(f'      <trkpt lon="{lon:.6f}" lat="{lat:.6f}"><ele>{ele:.6f}</ele><time>{stamp}</time>'
                     f'<extensions><speed>{rng.uniform(1.2, 3.9):.6f}</speed><course>{course:.6f}</course>'
                     f'<hAcc>{rng.uniform(1, 7):.6f}</hAcc><vAcc>{rng.uniform(1, 6):.6f}</vAcc></extensions></trkpt>')
    lines += ["    </trkseg>", "  </trk>", "</gpx>"]
    return "\n".join(lines).encode("utf-8")


def write_sample(out_dir: str, seed: int, verify: bool):
    rng = random.Random(seed)
    root, routes, cda = build_sample(rng)
    parts = [prolog()]
    # HealthData's own start tag is in the prolog; serialize its children and close it.
    for child in root.children:
        serialize(child, 1, parts)
    parts.append("</HealthData>\n")
    data = "".join(parts).encode("utf-8")
    os.makedirs(out_dir, exist_ok=True)
    xml_path = os.path.join(out_dir, "export.xml")
    with open(xml_path, "wb") as f:
        f.write(data)

    stamp = (2024, 12, 3, 20, 15, 42)
    members = [("apple_health_export/export_cda.xml", cda), ("apple_health_export/export.xml", data)]
    members += [(f"apple_health_export/workout-routes/{name}", body) for name, body in sorted(routes.items())]
    zip_path = os.path.join(out_dir, "export.zip")
    with zipfile.ZipFile(zip_path, "w") as z:
        for name, body in members:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            z.writestr(info, body, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)

    from_tree = tree_tally(root)
    from_file = analyze(xml_path)
    compare(from_tree, from_file, "tree vs parsed export.xml")
    write_json(os.path.join(out_dir, "expected.json"), from_file)
    if verify:
        with zipfile.ZipFile(zip_path) as z:
            assert z.read("apple_health_export/export.xml") == data
            for name in routes:
                assert z.read(f"apple_health_export/workout-routes/{name}") == routes[name]
        print("verify: ok", file=sys.stderr)
    print(f"wrote {xml_path} ({len(data)} bytes), {zip_path} ({os.path.getsize(zip_path)} bytes), "
          f"expected.json; routes: {', '.join(sorted(routes))}", file=sys.stderr)


# ----------------------------------------------------------------------------------------------
# Large mode: a day-by-day simulation written through precomputed strings.

BYTES_PER_DAY_ESTIMATE = 430_000  # measured (seed 1); only used to end the time span near 2025-06


class Era:
    """Per-year device and software versions, with precomputed record-line prefixes."""

    def __init__(self, year: int, rng: random.Random):
        if year <= 2019:
            whw, wsw, phw, psw, created = "Watch4,2", "6.1", "iPhone10,4", "13.3", False
        elif year <= 2021:
            whw, wsw, phw, psw, created = "Watch6,2", "7.4", "iPhone13,2", "14.6", False
        elif year <= 2023:
            whw, wsw, phw, psw, created = "Watch6,2", "9.6.3", "iPhone13,2", "16.6.1", True
        else:
            whw, wsw, phw, psw, created = "Watch7,2", "11.6.1", "iPhone16,1", "18.5", True
        self.stages = year >= 2023  # sleep stages from watchOS 9 on
        self.watch_src = "Mikian’s Apple Watch"
        self.phone_src = "Mikian’s iPhone"
        self.wsw, self.psw = wsw, psw
        wc = "2021-12-14 08:27:33 +0000" if created else None
        pc = "2024-08-31 17:17:55 +0000" if created else None
        # Real exports write a new `<<HKDevice: 0x…>` address on nearly every record,
        # so each draw from a pool gets a fresh address in front of the era's device fields.
        self.watch_pool = FreshAddressPool(rng, device_string(0, "Apple Watch", "Apple Inc.", "Watch", whw, wsw,
                                                              creation=wc))
        self.phone_pool = FreshAddressPool(rng, device_string(0, "iPhone", "Apple Inc.", "iPhone", phw, psw,
                                                              creation=pc))
        self.withings_pool = FreshAddressPool(rng, device_string(0, "Withings BPM Connect, Wi-Fi", "Withings",
                                                                 "BPM Connect", local_identifier="00:24:e4:7a:1b:2c"))
        self.pre = {}

    def prefix(self, rtype, who, unit):
        """(`<Record type=… device="`, `" unit=… creationDate="`) for a watch/phone/withings record."""
        key = (rtype, who, unit)
        p = self.pre.get(key)
        if p is None:
            src, ver = {"watch": (self.watch_src, self.wsw), "phone": (self.phone_src, self.psw),
                        "withings": ("Health Mate", "6.3.1")}[who]
            head = f' <Record type="{rtype}" sourceName="{esc(src)}" sourceVersion="{ver}" device="'
            mid = (f'" unit="{unit}" creationDate="' if unit else '" creationDate="')
            p = self.pre[key] = (head, mid)
        return p


def generate_large(path: str, size_mb: float, seed: int, expected_path, verify: bool, quiet: bool):
    t_begin = time.time()
    rng = random.Random(seed)
    R = rng.random
    bits = rng.getrandbits
    target = int(size_mb * MB)

    OFF = 3600
    OFFS = " +0100"
    HMS = [f"{h:02d}:{m:02d}:{s:02d}" for h in range(24) for m in range(60) for s in range(60)]
    epoch_date = dt.date(1970, 1, 1)
    dcache: dict = {}

    def ds(t):
        d, s = divmod(t + OFF, 86400)
        p = dcache.get(d)
        if p is None:
            p = dcache[d] = (epoch_date + dt.timedelta(days=d)).isoformat() + " "
        return p + HMS[s] + OFFS

    end_day = (dt.date(2025, 6, 1) - epoch_date).days
    first_day = end_day - max(1, int(target / BYTES_PER_DAY_ESTIMATE) + 1)
    eras: dict = {}

    Q = "HKQuantityTypeIdentifier"
    T_STEPS, T_DIST, T_HR = Q + "StepCount", Q + "DistanceWalkingRunning", Q + "HeartRate"
    T_AE, T_BE, T_EX = Q + "ActiveEnergyBurned", Q + "BasalEnergyBurned", Q + "AppleExerciseTime"
    T_ST, T_RR, T_O2 = Q + "AppleStandTime", Q + "RespiratoryRate", Q + "OxygenSaturation"
    T_HRV, T_SYS, T_DIA = Q + "HeartRateVariabilitySDNN", Q + "BloodPressureSystolic", Q + "BloodPressureDiastolic"
    T_SLEEP, T_SH = "HKCategoryTypeIdentifierSleepAnalysis", "HKCategoryTypeIdentifierAppleStandHour"

    rbt: dict = {}
    n = dict(metadataEntryCount=0, instantaneousBpmCount=0, correlationCount=0, correlationRecordCount=0,
             workoutEventCount=0, workoutStatisticsCount=0, workoutActivityCount=0, workoutRouteCount=0,
             activitySummaryCount=0, hrvLists=0)
    wba: dict = {}
    steps_by_day: dict = {}
    watch_steps_by_day: dict = {}
    min_start = [None]
    max_end = [0]

    tail_corr: list = []
    tail_workouts: list = []
    tail_summaries: list = []
    tail_bytes = [0]
    used_routes: set = set()

    MC_OPEN = '">\n  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="'
    CLOSE_META = '"/>\n </Record>\n'
    TZ_META = '">\n  <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>\n </Record>\n'

    f = open(path, "wb")
    head = prolog().encode("utf-8")
    f.write(head)
    export_pos = len(head) + len(' <ExportDate value="')
    placeholder = "0000-00-00 00:00:00 +0000"
    me = (f' <ExportDate value="{placeholder}"/>\n'
          ' <Me HKCharacteristicTypeIdentifierDateOfBirth="1988-04-23" '
          'HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" '
          'HKCharacteristicTypeIdentifierBloodType="HKBloodTypeAPositive" '
          'HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeIII" '
          'HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>\n').encode("utf-8")
    f.write(me)
    written = len(head) + len(me)
    footer_len = len("</HealthData>\n")

    since_workout = 0
    next_workout = 1400 + int(R() * 600)
    day = first_day
    pending: list = []
    pending_bytes = 0

    while written + pending_bytes + tail_bytes[0] + footer_len < target:
        t0 = day * 86400 - OFF  # local midnight
        year = (epoch_date + dt.timedelta(days=day)).year
        era = eras.get(year)
        if era is None:
            era = eras[year] = Era(year, rng)
        wpool, ppool = era.watch_pool, era.phone_pool
        out: list = []
        ap = out.append
        day_records = 0
        dstr = ds(t0)[:10]
        day_min = None
        day_max = 0

        # -- walking bouts → steps and distance from iPhone and Watch (overlapping intervals)
        nb = 6 + int(R() * 14)
        starts = sorted(t0 + 25200 + int(R() * 55800) for _ in range(nb))
        bouts = []
        last = 0
        for s in starts:
            if s < last + 60:
                s = last + 60
            if s > t0 + 84000:
                break
            dur = 120 + int(R() * R() * 2400)
            bouts.append((s, s + dur, 70 + R() * 50))
            last = s + dur
        step_lines = []
        dist_lines = []
        phone_sum = watch_sum = 0
        for who, pool, chunk_lo, chunk_span, miss in (("phone", ppool, 60, 540, 0.25), ("watch", wpool, 60, 240, 0.15)):
            sh, sm = era.prefix(T_STEPS, who, "count")
            dh, dm = era.prefix(T_DIST, who, "km")
            for bs, be, cad in bouts:
                if R() < miss:
                    continue
                t = bs + (int(R() * 90) if who == "watch" else 0)
                while t < be - 20:
                    te = min(be, t + chunk_lo + int(R() * chunk_span))
                    v = int(cad * (te - t) / 60 * (0.9 + 0.2 * R())) + 1
                    dev = pool[bits(12)]
                    a, b, c = ds(te + 60 + int(R() * 900)), ds(t), ds(te)
                    step_lines.append(f'{sh}{dev}{sm}{a}" startDate="{b}" endDate="{c}" value="{v}"/>\n')
                    dist_lines.append(f'{dh}{dev}{dm}{a}" startDate="{b}" endDate="{c}" value="{v * (0.00068 + R() * 0.00012):g}"/>\n')
                    if who == "watch":
                        watch_sum += v
                    else:
                        phone_sum += v
                    if day_min is None or t < day_min:
                        day_min = t
                    if te > day_max:
                        day_max = te
                    t = te
        out += step_lines
        out += dist_lines
        ns = len(step_lines)
        rbt[T_STEPS] = rbt.get(T_STEPS, 0) + ns
        rbt[T_DIST] = rbt.get(T_DIST, 0) + ns
        day_records += 2 * ns
        if ns:
            steps_by_day[dstr] = phone_sum + watch_sum
            if watch_sum:
                watch_steps_by_day[dstr] = watch_sum

        # -- heart rate every 3-8 minutes, around the clock; half with a motion context
        hh, hm = era.prefix(T_HR, "watch", "count/min")
        t = t0 + int(R() * 240)
        day_min = t if day_min is None else min(day_min, t)
        last_hr = t
        cnt = 0
        end = t0 + 86400
        while t < end:
            hour = (t - t0) // 3600
            v = (52 + int(R() * 10)) if hour < 7 else (62 + int(R() * 30))
            st = ds(t)
            line = f'{hh}{wpool[bits(12)]}{hm}{ds(t + 60 + int(R() * 500))}" startDate="{st}" endDate="{st}" value="{v}'
            if R() < 0.5:
                ap(f'{line}{MC_OPEN}{"1" if hour < 7 else "012"[bits(2) % 3]}{CLOSE_META}')
                n["metadataEntryCount"] += 1
            else:
                line += '"/>\n'
                ap(line)
                if bits(9) == 0:  # an exact duplicate now and then, as real exports hold
                    ap(line)
                    cnt += 1
            cnt += 1
            last_hr = t
            t += 180 + int(R() * 300)
        day_max = max(day_max, last_hr)
        rbt[T_HR] = rbt.get(T_HR, 0) + cnt
        day_records += cnt

        # -- active energy in 1-3 minute intervals while awake
        ah, am = era.prefix(T_AE, "watch", "kcal")
        t = t0 + 25200 + int(R() * 1800)
        cnt = 0
        energy = 0.0
        end = t0 + 82800
        while t < end:
            te = t + 60 + int(R() * 140)
            v = float("%g" % (0.05 + R() * R() * 4))
            energy += v
            ap(f'{ah}{wpool[bits(12)]}{am}{ds(te + 30 + int(R() * 600))}" startDate="{ds(t)}" endDate="{ds(te)}" value="{v:g}"/>\n')
            cnt += 1
            t = te + (0 if R() < 0.8 else int(R() * 600))
        rbt[T_AE] = rbt.get(T_AE, 0) + cnt
        day_records += cnt

        # -- basal energy around the clock
        bh, bm = era.prefix(T_BE, "watch", "kcal")
        t = t0 + int(R() * 300)
        day_min = min(day_min, t)
        cnt = 0
        end = t0 + 86400
        while t < end:
            te = t + 300 + int(R() * 900)
            ap(f'{bh}{wpool[bits(12)]}{bm}{ds(te + 30 + int(R() * 600))}" startDate="{ds(t)}" endDate="{ds(te)}" value="{(te - t) * (0.0115 + R() * 0.002):g}"/>\n')
            cnt += 1
            day_max = max(day_max, te)
            t = te
        rbt[T_BE] = rbt.get(T_BE, 0) + cnt
        day_records += cnt

        # -- exercise minutes in brisk bouts, stand minutes per waking hour
        eh, em = era.prefix(T_EX, "watch", "min")
        cnt = 0
        ex_minutes = 0
        for bs, be, cad in bouts:
            if cad < 100:
                continue
            t = bs - bs % 60 + 60
            while t + 60 <= be:
                ap(f'{eh}{wpool[bits(12)]}{em}{ds(t + 120 + int(R() * 300))}" startDate="{ds(t)}" endDate="{ds(t + 60)}" value="1"/>\n')
                cnt += 1
                t += 60
        ex_minutes = cnt
        rbt[T_EX] = rbt.get(T_EX, 0) + cnt
        day_records += cnt
        sth, stm = era.prefix(T_ST, "watch", "min")
        cnt = 0
        stood_hours = []
        for hour in range(7, 23):
            if R() < 0.2:
                continue
            stood_hours.append(hour)
            t = t0 + hour * 3600 + int(R() * 2400)
            for _ in range(1 + bits(1)):
                m = 1 + int(R() * 4)
                ap(f'{sth}{wpool[bits(12)]}{stm}{ds(t + m * 60 + 90)}" startDate="{ds(t)}" endDate="{ds(t + m * 60)}" value="{m}"/>\n')
                cnt += 1
                t += m * 60 + int(R() * 600)
        rbt[T_ST] = rbt.get(T_ST, 0) + cnt
        day_records += cnt

        # -- respiratory rate and SpO2 during the night (00:30-06:30)
        rh, rm = era.prefix(T_RR, "watch", "count/min")
        t = t0 + 1800 + int(R() * 900)
        cnt = 0
        while t < t0 + 23400:
            te = t + 600 + int(R() * 1200)
            ap(f'{rh}{wpool[bits(12)]}{rm}{ds(te + 300)}" startDate="{ds(t)}" endDate="{ds(te)}" value="{12 + int(R() * 60) / 10:g}"/>\n')
            cnt += 1
            t = te + int(R() * 600)
        rbt[T_RR] = rbt.get(T_RR, 0) + cnt
        day_records += cnt
        oh, om = era.prefix(T_O2, "watch", "%")
        cnt = 4 + bits(2)
        for i in range(cnt):
            t = t0 + 3600 + i * 4800 + int(R() * 3000)
            st = ds(t)
            third = bits(1)  # 2 or 3 metadata entries
            ap(f'{oh}{wpool[bits(12)]}{om}{ds(t + 40)}" startDate="{st}" endDate="{st}" value="{(93 + int(R() * 8)) / 100:g}">\n'
               '  <MetadataEntry key="HKMetadataKeyAppleDeviceCalibrated" value="1"/>\n'
               + ('  <MetadataEntry key="HKAlgorithmVersion" value="2"/>\n' if third else '')
               + '  <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>\n </Record>\n')
            n["metadataEntryCount"] += 2 + third
        rbt[T_O2] = rbt.get(T_O2, 0) + cnt
        day_records += cnt

        # -- HRV SDNN with ~40 instantaneous beats each (beat times in real, DST-aware local time)
        vh, vm = era.prefix(T_HRV, "watch", "ms")
        cnt = 3 + bits(2)
        real_off = paris_offset(t0 + 43200)
        for i in range(cnt):
            t = t0 + 1800 + i * 19000 + int(R() * 12000)
            parts = [f'{vh}{wpool[bits(12)]}{vm}{ds(t + 65)}" startDate="{ds(t)}" endDate="{ds(t + 60)}" value="{20 + R() * 60:.6g}">\n'
                     '  <HeartRateVariabilityMetadataList>\n']
            nbeats = 35 + int(R() * 11)
            x = (t + real_off) % 86400 + R()
            for _ in range(nbeats):
                bpm = 55 + int(R() * 20)
                parts.append(f'   <InstantaneousBeatsPerMinute bpm="{bpm}" time="{hrv_time(x)}"/>\n')
                x += 60 / bpm
            parts.append('  </HeartRateVariabilityMetadataList>\n </Record>\n')
            ap("".join(parts))
            n["instantaneousBpmCount"] += nbeats
        n["hrvLists"] += cnt
        rbt[T_HRV] = rbt.get(T_HRV, 0) + cnt
        day_records += cnt

        # -- blood pressure every ~9 days: top-level records now, the correlation at the end
        if R() < 0.11:
            t = t0 + 25200 + int(R() * 3600)
            dev = era.withings_pool[bits(6)]
            cr, st = ds(t + 12), ds(t)
            sv, dv = 112 + int(R() * 25), 70 + int(R() * 15)
            lines = []
            for rtype, v in ((T_DIA, dv), (T_SYS, sv)):
                h_, m_ = era.prefix(rtype, "withings", "mmHg")
                lines.append(f'{h_}{dev}{m_}{cr}" startDate="{st}" endDate="{st}" value="{v}"/>\n')
                rbt[rtype] = rbt.get(rtype, 0) + 1
            out += lines
            day_records += 2
            corr = (f' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Health Mate" '
                    f'sourceVersion="6.3.1" device="{dev}" creationDate="{cr}" startDate="{st}" endDate="{st}">\n'
                    + "".join(" " + ln for ln in lines) + " </Correlation>\n")
            tail_corr.append(corr)
            tail_bytes[0] += len(corr)
            n["correlationCount"] += 1
            n["correlationRecordCount"] += 2

        # -- sleep: watch stages (or AsleepUnspecified before watchOS 9) with HKTimeZone; iPhone in bed
        s0 = t0 + 82800 + int(R() * 3600)
        s_end = s0 + 25200 + int(R() * 3600)
        ph, pm_ = era.prefix(T_SLEEP, "phone", None)
        ap(f'{ph}{ppool[bits(12)]}{pm_}{ds(s_end + 600)}" startDate="{ds(s0 - 600)}" endDate="{ds(s_end + 300)}" value="HKCategoryValueSleepAnalysisInBed"/>\n')
        cnt = 1
        wh, wm = era.prefix(T_SLEEP, "watch", None)
        t = s0
        while t < s_end:
            te = min(s_end, t + 300 + int(R() * 2400))
            if era.stages:
                v = ("AsleepCore", "AsleepCore", "AsleepDeep", "AsleepREM", "Awake")[int(R() * 5)]
            else:
                v = "AsleepUnspecified"
            ap(f'{wh}{wpool[bits(12)]}{wm}{ds(s_end + 900)}" startDate="{ds(t)}" endDate="{ds(te)}" value="HKCategoryValueSleepAnalysis{v}{TZ_META}')
            cnt += 1
            n["metadataEntryCount"] += 1
            t = te
        day_max = max(day_max, s_end + 300)
        rbt[T_SLEEP] = rbt.get(T_SLEEP, 0) + cnt
        day_records += cnt

        # -- stand hours
        shh, shm = era.prefix(T_SH, "watch", None)
        cnt = 0
        for hour in range(7, 23):
            t = t0 + hour * 3600
            v = "Stood" if hour in stood_hours else "Idle"
            ap(f'{shh}{wpool[bits(12)]}{shm}{ds(t + 3610)}" startDate="{ds(t)}" endDate="{ds(t + 3600)}" value="HKCategoryValueAppleStandHour{v}"/>\n')
            cnt += 1
        rbt[T_SH] = rbt.get(T_SH, 0) + cnt
        day_records += cnt

        # -- workouts (one per ~2000 records) and the day's activity summary, written at the end
        since_workout += day_records
        if since_workout >= next_workout:
            since_workout = 0
            next_workout = 1400 + int(R() * 600)
            text = large_workout(rng, era, ds, t0, n, wba, used_routes)
            tail_workouts.append(text)
            tail_bytes[0] += len(text.encode("utf-8"))
        summ = (f' <ActivitySummary dateComponents="{dstr}" activeEnergyBurned="{energy:g}" '
                f'activeEnergyBurnedGoal="{450 + 50 * (year % 3)}" activeEnergyBurnedUnit="kcal" appleMoveTime="0" '
                f'appleMoveTimeGoal="0" appleExerciseTime="{ex_minutes}" appleExerciseTimeGoal="30" '
                f'appleStandHours="{len(stood_hours)}" appleStandHoursGoal="12"/>\n')
        tail_summaries.append(summ)
        tail_bytes[0] += len(summ)
        n["activitySummaryCount"] += 1

        if min_start[0] is None or day_min < min_start[0]:
            min_start[0] = day_min
        if day_max > max_end[0]:
            max_end[0] = day_max
        chunk = "".join(out).encode("utf-8")
        pending.append(chunk)
        pending_bytes += len(chunk)
        if pending_bytes >= 8 << 20:
            f.write(b"".join(pending))
            written += pending_bytes
            pending, pending_bytes = [], 0
        day += 1

    f.write(b"".join(pending))
    written += pending_bytes
    tail = ("".join(tail_corr) + "".join(tail_workouts) + "".join(tail_summaries) + "</HealthData>\n").encode("utf-8")
    f.write(tail)
    written += len(tail)
    export_t = ((max_end[0] + OFF) // 86400 + 1) * 86400 - OFF + 20 * 3600 + 15 * 60 + 42
    export_date = ds(export_t)
    f.seek(export_pos)
    f.write(export_date.encode("ascii"))
    f.close()

    elapsed = time.time() - t_begin
    records = sum(rbt.values())
    workouts = sum(wba.values())
    elements = (3 + records + n["metadataEntryCount"] + n["hrvLists"] + n["instantaneousBpmCount"]
                + n["correlationCount"] + n["correlationRecordCount"] + workouts + n["workoutEventCount"]
                + n["workoutStatisticsCount"] + n["workoutActivityCount"] + 2 * n["workoutRouteCount"]
                + n["activitySummaryCount"])
    expected = {
        "recordCount": records, "recordsByType": dict(sorted(rbt.items())), "workoutCount": workouts,
        "workoutsByActivity": dict(sorted(wba.items())), "correlationCount": n["correlationCount"],
        "correlationRecordCount": n["correlationRecordCount"], "activitySummaryCount": n["activitySummaryCount"],
        "clinicalRecordCount": 0, "audiogramCount": 0, "visionPrescriptionCount": 0,
        "metadataEntryCount": n["metadataEntryCount"], "instantaneousBpmCount": n["instantaneousBpmCount"],
        "workoutEventCount": n["workoutEventCount"], "workoutStatisticsCount": n["workoutStatisticsCount"],
        "workoutActivityCount": n["workoutActivityCount"], "workoutRouteCount": n["workoutRouteCount"],
        "firstDate": ds(min_start[0]), "lastDate": ds(max_end[0]), "exportVersion": EXPORT_VERSION,
        "locale": LOCALE, "exportDate": export_date, "elementCount": elements,
        "stepsByDay": dict(sorted(steps_by_day.items())), "watchStepsByDay": dict(sorted(watch_steps_by_day.items())),
    }
    if not quiet:
        print(f"wrote {path}: {written / MB:.1f} MB, {day - first_day} days, {records} records, "
              f"{workouts} workouts, {elements} elements in {elapsed:.1f} s "
              f"({written / MB / max(elapsed, 1e-9):.1f} MB/s)", file=sys.stderr)
    if expected_path:
        write_json(expected_path, expected)
    if verify:
        t = time.time()
        compare(expected, analyze(path), "generator counts vs parsed file")
        if not quiet:
            print(f"verify: ok ({time.time() - t:.1f} s)", file=sys.stderr)


def large_workout(rng, era, ds, t0, n, wba, used_routes) -> str:
    """A modern (v14) workout: metadata block, events, [activities], statistics, [route], block again."""
    R = rng.random
    kind = R()
    if kind < 0.35:
        act, speed, dist_type, route = "Running", 10 + R() * 3, "DistanceWalkingRunning", True
    elif kind < 0.65:
        act, speed, dist_type, route = "Walking", 4.5 + R(), "DistanceWalkingRunning", True
    elif kind < 0.8:
        act, speed, dist_type, route = "Cycling", 18 + R() * 8, "DistanceCycling", True
    elif kind < 0.9:
        act, speed, dist_type, route = "TraditionalStrengthTraining", 0, None, False
    elif kind < 0.95:
        act, speed, dist_type, route = "Yoga", 0, None, False
    else:
        act, speed, dist_type, route = "Swimming", 2.2 + R(), "DistanceSwimming", False
    start = t0 + 61200 + int(R() * 7200)
    minutes = 20 + R() * 55
    pause = int(R() * 150) if R() < 0.3 else 0
    end = start + int(minutes * 60) + pause
    s, e = ds(start), ds(end)
    dev = era.watch_pool[rng.getrandbits(12)]
    Q = "HKQuantityTypeIdentifier"
    block = [("HKIndoorWorkout", "1" if act in ("TraditionalStrengthTraining", "Yoga", "Swimming") else "0")]
    if route:
        block.append(("HKElevationAscended", f"{int(R() * 9000)} cm"))
    if act == "Swimming":
        block += [("HKLapLength", "25 m"), ("HKSwimmingLocationType", "1")]
    block.append(("HKTimeZone", "Europe/Paris"))
    if route:
        block += [("HKWeatherHumidity", f"{4000 + int(R() * 50) * 100} %"),
                  ("HKWeatherTemperature", f"{35 + R() * 50:g} degF")]
    block.append(("HKAverageMETs", f"{3 + R() * 8:g} kcal/hr·kg"))
    meta = "".join(f'  <MetadataEntry key="{k}" value="{esc(v)}"/>\n' for k, v in block)
    lines = [f' <Workout workoutActivityType="HKWorkoutActivityType{act}" duration="{minutes:.16g}" durationUnit="min" '
             f'sourceName="{esc(era.watch_src)}" sourceVersion="{era.wsw}" device="{dev}" creationDate="{ds(end + 9)}" '
             f'startDate="{s}" endDate="{e}">\n', meta]
    events = 0
    stats = 0
    metas = 2 * len(block)
    if dist_type and act != "Swimming":
        km = minutes / 60 * speed
        for split in (1.0, 1.609344):
            per = split / speed * 60
            i = 0
            while (i + 1) * split <= km:
                lines.append(f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{ds(start + int(i * per * 60))}" '
                             f'duration="{per * (0.95 + R() * 0.1):.16g}" durationUnit="min"/>\n')
                events += 1
                i += 1
    if act == "Swimming":
        t = start
        for _ in range(4 + int(R() * 8)):
            lap = 0.9 + R() * 0.6
            lines.append(f'  <WorkoutEvent type="HKWorkoutEventTypeLap" date="{ds(t)}" duration="{lap:.16g}" durationUnit="min">\n'
                         f'   <MetadataEntry key="HKSwimmingStrokeStyle" value="{rng.choice("1234")}"/>\n'
                         f'   <MetadataEntry key="HKSWOLFScore" value="{80 + R() * 50:.16g}"/>\n  </WorkoutEvent>\n')
            events += 1
            metas += 2
            t += int(lap * 60) + int(R() * 60)
    if pause:
        p = start + int(minutes * 30)
        lines.append(f'  <WorkoutEvent type="HKWorkoutEventTypePause" date="{ds(p)}"/>\n'
                     f'  <WorkoutEvent type="HKWorkoutEventTypeResume" date="{ds(p + pause)}"/>\n')
        events += 2
    if act == "Running" and R() < 0.3:  # custom interval workout: one WorkoutActivity per step
        t = start
        for i in range(2 + int(R() * 3)):
            te = end if i == 3 else min(end, t + 300 + int(R() * 600))
            lines.append(f'  <WorkoutActivity uuid="{rand_uuid(rng)}" startDate="{ds(t)}" endDate="{ds(te)}" '
                         f'duration="{(te - t) / 60 * (0.99 + R() * 0.01):.16g}" durationUnit="min">\n'
                         f'   <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{ds(t)}" duration="{(te - t) / 60:.16g}" durationUnit="min"/>\n'
                         f'   <WorkoutStatistics type="{Q}HeartRate" startDate="{ds(t)}" endDate="{ds(te)}" average="{130 + R() * 30:g}" minimum="{100 + int(R() * 20)}" maximum="{160 + int(R() * 20)}" unit="count/min"/>\n'
                         f'   <MetadataEntry key="WOIntervalStepKeyPath" value="0.{i}.0"/>\n'
                         f'   <MetadataEntry key="WOIntervalStepSuccessful" value="1"/>\n  </WorkoutActivity>\n')
            n["workoutActivityCount"] += 1
            events += 1
            stats += 1
            metas += 2
            t = te
            if t >= end:
                break
    energy = minutes * (4 + R() * 8)
    stat_lines = [f'  <WorkoutStatistics type="{Q}ActiveEnergyBurned" startDate="{s}" endDate="{e}" sum="{energy:g}" unit="kcal"/>\n',
                  f'  <WorkoutStatistics type="{Q}BasalEnergyBurned" startDate="{s}" endDate="{e}" sum="{minutes * 1.2:g}" unit="kcal"/>\n',
                  f'  <WorkoutStatistics type="{Q}HeartRate" startDate="{s}" endDate="{e}" average="{100 + R() * 50:g}" minimum="{75 + int(R() * 20)}" maximum="{150 + int(R() * 30)}" unit="count/min"/>\n']
    if dist_type == "DistanceSwimming":
        stat_lines.append(f'  <WorkoutStatistics type="{Q}DistanceSwimming" startDate="{s}" endDate="{e}" sum="{int(minutes * speed * 1000 / 60 / 25) * 25}" unit="m"/>\n')
    elif dist_type:
        stat_lines.append(f'  <WorkoutStatistics type="{Q}{dist_type}" startDate="{s}" endDate="{e}" sum="{minutes / 60 * speed:g}" unit="km"/>\n')
    if act in ("Running", "Walking"):
        stat_lines.append(f'  <WorkoutStatistics type="{Q}StepCount" startDate="{s}" endDate="{e}" sum="{minutes * (110 + R() * 60):g}" unit="count"/>\n')
    if act == "Running":
        stat_lines.append(f'  <WorkoutStatistics type="{Q}RunningSpeed" startDate="{s}" endDate="{e}" average="{speed:g}" minimum="{speed * 0.45:g}" maximum="{speed * 1.3:g}" unit="km/hr"/>\n')
    lines += stat_lines
    stats += len(stat_lines)
    if route:
        local = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=end + paris_offset(end))
        stamp = route_stamp(local)[0]
        name = f"route_{stamp}.gpx"
        k = 1
        while name in used_routes:
            name = f"route_{stamp}_{k}.gpx"
            k += 1
        used_routes.add(name)
        lines.append(f'  <WorkoutRoute sourceName="{esc(era.watch_src)}" sourceVersion="{era.wsw}" creationDate="{ds(end + 14)}" startDate="{s}" endDate="{e}">\n'
                     f'   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>\n'
                     f'   <MetadataEntry key="HKMetadataKeySyncIdentifier" value="{rand_uuid(rng)}"/>\n'
                     f'   <FileReference path="/workout-routes/{name}"/>\n  </WorkoutRoute>\n')
        n["workoutRouteCount"] += 1
        metas += 2
    lines.append(meta)
    lines.append(" </Workout>\n")
    n["workoutEventCount"] += events
    n["workoutStatisticsCount"] += stats
    n["metadataEntryCount"] += metas
    key = "HKWorkoutActivityType" + act
    wba[key] = wba.get(key, 0) + 1
    return "".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--sample", metavar="OUT_DIR", help="write the small sample export, zip and expected.json")
    mode.add_argument("--size-mb", type=float, metavar="N", help="write a large export.xml of about N MB (10^6 bytes)")
    ap.add_argument("-o", "--output", metavar="PATH", help="output path for --size-mb (a regular file)")
    ap.add_argument("--expected", metavar="PATH", help="with --size-mb: also write the counts as JSON here")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--verify", action="store_true", help="re-parse the output with expat and compare the counts")
    ap.add_argument("--quiet", action="store_true", help="no progress summary on stderr")
    ap.add_argument("--bundle", metavar="OUT_DIR",
                    help="with --size-mb: write a whole export folder and zip with GPX routes and ECGs "
                         "(generate_bundle.py)")
    ap.add_argument("--gpx-mb", type=float, default=1.0, metavar="M", help="with --bundle: MB of GPX (default 1)")
    args = ap.parse_args(argv)
    if args.bundle:
        if not args.size_mb or args.size_mb <= 0:
            ap.error("--bundle needs --size-mb N")
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import generate_bundle
        generate_bundle.write_bundle(sys.modules[__name__], args.bundle, args.size_mb, args.gpx_mb, args.seed,
                                     args.quiet)
        return
    if args.sample:
        write_sample(args.sample, args.seed, args.verify)
    else:
        if not args.output:
            ap.error("--size-mb needs -o PATH")
        if args.size_mb <= 0:
            ap.error("--size-mb must be positive")
        generate_large(args.output, args.size_mb, args.seed, args.expected, args.verify, args.quiet)


if __name__ == "__main__":
    main()
