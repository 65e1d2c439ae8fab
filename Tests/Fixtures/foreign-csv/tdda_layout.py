"""Writes the CSV files that tdda/applehealthdata 1.3 writes from an export, for healthport's tests.

Usage: python3 tdda_layout.py EXPORT OUT_DIR

EXPORT is an export.xml, or an export.zip (its member whose root is HealthData). The layout, as
tdda/applehealthdata 1.3 writes it (applehealthdata.py; written here from its documented behaviour):

- the direct children of HealthData only (Records inside a Correlation are not written);
- one file per Record type, named after the type without its `HK...TypeIdentifier` prefix (the
  part after the last `TypeIdentifier` of a name starting with `HK`; other names stay whole), with
  the header `sourceName,sourceVersion,device,type,unit,creationDate,startDate,endDate,value`; the
  `type` cell holds the same short name;
- `Workout.csv` with `sourceName,sourceVersion,device,creationDate,startDate,endDate,
  workoutActivityType,duration,durationUnit,totalDistance,totalDistanceUnit,totalEnergyBurned,
  totalEnergyBurnedUnit` (the activity type in full);
- `ActivitySummary.csv` with `dateComponents,activeEnergyBurned,activeEnergyBurnedGoal,
  activeEnergyBurnedUnit,appleExerciseTime,appleExerciseTimeGoal,appleStandHours,
  appleStandHoursGoal`;
- the header unquoted; a missing attribute an empty cell; string fields (sources, device, type,
  units, the activity type, and ActivitySummary's unit and exercise times) always quoted, a
  backslash written `\\` and a quote `\"` (no RFC 4180 doubling); numbers and dates (value,
  duration, totals, the summary's energies and stand hours) written as they are, unquoted; rows
  end in LF; UTF-8.
"""

import os
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

RECORD = [("sourceName", "s"), ("sourceVersion", "s"), ("device", "s"), ("type", "s"), ("unit", "s"),
          ("creationDate", "d"), ("startDate", "d"), ("endDate", "d"), ("value", "n")]
WORKOUT = [("sourceName", "s"), ("sourceVersion", "s"), ("device", "s"), ("creationDate", "d"),
           ("startDate", "d"), ("endDate", "d"), ("workoutActivityType", "s"), ("duration", "n"),
           ("durationUnit", "s"), ("totalDistance", "n"), ("totalDistanceUnit", "s"),
           ("totalEnergyBurned", "n"), ("totalEnergyBurnedUnit", "s")]
ACTIVITY_SUMMARY = [("dateComponents", "d"), ("activeEnergyBurned", "n"), ("activeEnergyBurnedGoal", "n"),
                    ("activeEnergyBurnedUnit", "s"), ("appleExerciseTime", "s"), ("appleExerciseTimeGoal", "s"),
                    ("appleStandHours", "n"), ("appleStandHoursGoal", "n")]
COLUMNS = {"Record": RECORD, "Workout": WORKOUT, "ActivitySummary": ACTIVITY_SUMMARY}


def short_name(identifier):
    match = re.match(r"^HK.*TypeIdentifier(.+)$", identifier)
    return match.group(1) if match else identifier


def cell(value, kind):
    if value is None:
        return ""
    if kind == "s":
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def export_root(path):
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if name.startswith("__MACOSX") or not name.endswith(".xml"):
                    continue
                data = archive.read(name)
                if b"<HealthData" in data[: 1 << 20]:
                    return ET.fromstring(data)
        raise SystemExit("no export in " + path)
    return ET.parse(path).getroot()


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    files = {}
    for node in list(export_root(source)):
        if node.tag not in COLUMNS:
            continue
        attributes = dict(node.attrib)
        if node.tag == "Record":
            attributes["type"] = short_name(attributes["type"])
            name = attributes["type"]
        else:
            name = node.tag
        if name not in files:
            files[name] = open(os.path.join(out, name + ".csv"), "w", encoding="utf-8", newline="\n")
            files[name].write(",".join(column for column, _ in COLUMNS[node.tag]) + "\n")
        files[name].write(",".join(cell(attributes.get(c), k) for c, k in COLUMNS[node.tag]) + "\n")
    for handle in files.values():
        handle.close()
    print("\n".join(sorted(files)))


if __name__ == "__main__":
    main()
