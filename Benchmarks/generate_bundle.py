"""The bundle mode of generate_export.py: a whole export folder and zip with GPX routes and ECGs.

  generate_export.py --size-mb N --bundle OUT_DIR [--gpx-mb M] [--seed N] [--quiet]

Writes OUT_DIR/apple_health_export/ (export.xml, export_cda.xml, workout-routes/*.gpx,
electrocardiograms/*.csv, clinical-records/*.json) and OUT_DIR/export.zip. export.xml is the
large mode's export for the same size and seed, byte for byte, with four workouts appended
before `</HealthData>`: two routes in one workout of two WorkoutActivity, a route crossing
local midnight, a legacy inline `Location` route, and a reference to a file that is missing.
Every workout route of the large export gets its GPX file (about M MB of them in all), plus
one GPX that no workout references, and two ECGs (`.` and `,` decimal separators). In the zip,
half of the routes come before export.xml.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import zipfile

_WORKOUT = re.compile(r'^ <Workout .*startDate="([^"]+)" endDate="([^"]+)"')
_REFERENCE = re.compile(r'<FileReference path="/workout-routes/([^"]+)"/>')
POINT_BYTES = 262  # one trkpt line as make_gpx writes it, measured


def write_bundle(gen, out_dir: str, size_mb: float, gpx_mb: float, seed: int, quiet: bool):
    top = os.path.join(out_dir, "apple_health_export")
    for sub in ("workout-routes", "electrocardiograms", "clinical-records"):
        os.makedirs(os.path.join(top, sub), exist_ok=True)
    xml_path = os.path.join(top, "export.xml")
    gen.generate_large(xml_path, size_mb, seed, None, False, quiet)

    references = []  # (file name, workout start instant, end instant)
    workout = None
    export_date = None
    with open(xml_path, encoding="utf-8") as f:
        for line in f:
            if export_date is None and line.startswith(' <ExportDate value="'):
                export_date = gen.instant(line[20:45])
            m = _WORKOUT.match(line)
            if m:
                workout = (gen.instant(m.group(1)), gen.instant(m.group(2)))
                continue
            m = _REFERENCE.search(line)
            if m and workout:
                references.append((m.group(1), workout[0], workout[1]))

    rng = random.Random(seed + 7919)
    export_z = "2025-06-30T18:00:00Z"
    routes = {}  # file name -> GPX bytes
    budget = max(1, int(gpx_mb * 1_000_000 / POINT_BYTES))
    per_route = max(10, budget // max(1, len(references) + 5))
    base = (48.8566, 2.3522)

    def gpx(name, t0, t1, points):
        local = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=t1 + gen.paris_offset(t1))
        routes[name] = gen.make_gpx(rng, gen.route_stamp(local)[1], t0, t1, points, base, export_z)

    for name, t0, t1 in references:
        gpx(name, t0, t1, max(2, int(per_route * rng.uniform(0.5, 1.5))))

    # The appended workouts, in the export's offset (+0100 / +0200 like the rest).
    def ds(t):
        off = gen.paris_offset(t)
        local = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=t + off)
        return f"{local:%Y-%m-%d %H:%M:%S} +0{off // 3600}00"

    src = 'sourceName="Bundle Watch" sourceVersion="11.1"'
    # Four to one days before the export: 06:00 UTC on the first.
    t = (export_date // 86400 - 4) * 86400 + 6 * 3600
    extra = []

    def route_element(s, e, name, indent="  "):
        return (f'{indent}<WorkoutRoute {src} creationDate="{ds(e + 14)}" startDate="{ds(s)}" endDate="{ds(e)}">\n'
                f'{indent} <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>\n'
                f'{indent} <FileReference path="/workout-routes/{name}"/>\n{indent}</WorkoutRoute>\n')

    # 1. One workout, two activities, a route in each.
    s, mid, e = t, t + 1800, t + 3600
    extra.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="60" durationUnit="min" '
                 f'{src} creationDate="{ds(e + 9)}" startDate="{ds(s)}" endDate="{ds(e)}">\n'
                 f'  <WorkoutActivity uuid="0B6F3E1A-0000-4000-8000-000000000001" startDate="{ds(s)}" endDate="{ds(mid)}" duration="30" durationUnit="min"/>\n'
                 f'  <WorkoutActivity uuid="0B6F3E1A-0000-4000-8000-000000000002" startDate="{ds(mid + 60)}" endDate="{ds(e)}" duration="29" durationUnit="min"/>\n'
                 + route_element(s, mid, "route_bundle_first.gpx") + route_element(mid + 60, e, "route_bundle_second.gpx")
                 + " </Workout>\n")
    gpx("route_bundle_first.gpx", s, mid, 40)
    gpx("route_bundle_second.gpx", mid + 60, e, 35)
    # 2. Across local midnight.
    s = t - 6 * 3600 + 23 * 3600 + 40 * 60 - gen.paris_offset(t)  # 23:40 local that day
    e = s + 45 * 60
    extra.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="45" durationUnit="min" '
                 f'{src} creationDate="{ds(e + 9)}" startDate="{ds(s)}" endDate="{ds(e)}">\n'
                 + route_element(s, e, "route_bundle_midnight.gpx") + " </Workout>\n")
    gpx("route_bundle_midnight.gpx", s, e, 30)
    # 3. A legacy inline route: Location points inside the WorkoutRoute.
    s, e = t + 86400, t + 86400 + 600
    locations = "".join(
        f'   <Location date="{ds(s + i * 60)}" latitude="{48.85 + i * 0.0004:.6f}" longitude="{2.35 + i * 0.0005:.6f}" '
        f'altitude="{35 + i * 0.5:.6f}" horizontalAccuracy="5.000000" verticalAccuracy="3.000000" course="-1.000000" '
        f'speed="1.250000"/>\n' for i in range(6))
    extra.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="10" durationUnit="min" '
                 f'{src} creationDate="{ds(e + 9)}" startDate="{ds(s)}" endDate="{ds(e)}">\n'
                 f'  <WorkoutRoute {src} startDate="{ds(s)}" endDate="{ds(e)}">\n{locations}  </WorkoutRoute>\n </Workout>\n')
    # 4. A reference to a file the bundle does not hold.
    s, e = t + 2 * 86400, t + 2 * 86400 + 900
    extra.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="15" durationUnit="min" '
                 f'{src} creationDate="{ds(e + 9)}" startDate="{ds(s)}" endDate="{ds(e)}">\n'
                 + route_element(s, e, "route_bundle_missing.gpx") + " </Workout>\n")
    # An unreferenced GPX.
    gpx("route_bundle_unreferenced.gpx", s + 3600, s + 3900, 12)

    with open(xml_path, "rb+") as f:
        f.seek(-len(b"</HealthData>\n"), os.SEEK_END)
        assert f.read() == b"</HealthData>\n"
        f.seek(-len(b"</HealthData>\n"), os.SEEK_END)
        f.write("".join(extra).encode("utf-8") + b"</HealthData>\n")

    ecgs = {
        "ecg_2025-06-28.csv": ecg(rng, "2025-06-28 09:12:44 +0200", ".", 512, "512 hertz", 15360),
        "ecg_2025-06-28_1.csv": ecg(rng, "2025-06-28 21:03:10 +0200", ",", 512.844, '"512,844 hertz"', 15360),
    }
    cda = b'<?xml version="1.0"?>\n<ClinicalDocument xmlns="urn:hl7-org:v3">\n</ClinicalDocument>\n'
    clinical = b'{"resourceType":"Observation","id":"bundle-1","status":"final"}\n'
    for name, body in routes.items():
        with open(os.path.join(top, "workout-routes", name), "wb") as f:
            f.write(body)
    for name, body in ecgs.items():
        with open(os.path.join(top, "electrocardiograms", name), "wb") as f:
            f.write(body)
    with open(os.path.join(top, "export_cda.xml"), "wb") as f:
        f.write(cda)
    with open(os.path.join(top, "clinical-records", "Observation-bundle-1.json"), "wb") as f:
        f.write(clinical)

    names = sorted(routes)
    half = len(names) // 2
    stamp = (2025, 6, 30, 20, 0, 0)
    with zipfile.ZipFile(os.path.join(out_dir, "export.zip"), "w", allowZip64=True) as z:
        def add(member, path=None, body=None):
            info = zipfile.ZipInfo("apple_health_export/" + member, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            if path:
                with open(path, "rb") as src_file, z.open(info, "w", force_zip64=True) as dst:
                    while chunk := src_file.read(1 << 20):
                        dst.write(chunk)
            else:
                z.writestr(info, body, compresslevel=6)
        for name in names[:half]:
            add("workout-routes/" + name, body=routes[name])
        add("export_cda.xml", body=cda)
        add("export.xml", path=xml_path)
        for name in names[half:]:
            add("workout-routes/" + name, body=routes[name])
        for name, body in ecgs.items():
            add("electrocardiograms/" + name, body=body)
        add("clinical-records/Observation-bundle-1.json", body=clinical)
    if not quiet:
        points = sum(body.count(b"<trkpt ") for body in routes.values())
        print(f"bundle: {len(routes)} GPX files ({sum(map(len, routes.values()))} bytes, {points} points), "
              f"{len(ecgs)} ECGs, {os.path.join(out_dir, 'export.zip')}", flush=True)


def ecg(rng, recorded, separator, rate, rate_text, samples) -> bytes:
    """An ECG CSV in the Health app's layout, samples with `separator`."""
    lines = ["Name,Bundle Person", 'Date of Birth,"Jan 8, 2002"', f"Recorded Date,{recorded}",
             "Classification,Sinus Rhythm", "Symptoms,", "Software Version,2.0", 'Device,"Watch7,12"',
             f"Sample Rate,{rate_text}", "", "", "Lead,Lead I", "Unit,µV", ""]
    for i in range(samples):
        value = f"{rng.uniform(-400, 900):.3f}"
        lines.append(value.replace(".", separator))
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_long_route(out_dir: str, points: int) -> str:
    """A small export folder whose one workout has one route of `points` points, the GPX written
    point by point (flat memory, any length). Returns the folder (OUT_DIR/apple_health_export)."""
    top = os.path.join(out_dir, "apple_health_export")
    os.makedirs(os.path.join(top, "workout-routes"), exist_ok=True)
    t0 = 1_700_000_000
    t1 = t0 + points - 1

    def local(t):
        return (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=t)).strftime("%Y-%m-%d %H:%M:%S +0000")

    src = 'sourceName="Bundle Watch" sourceVersion="11.1"'
    with open(os.path.join(top, "export.xml"), "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n'
                f' <ExportDate value="{local(t1 + 3600)}"/>\n'
                f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="{points / 60:.4f}" '
                f'durationUnit="min" {src} creationDate="{local(t1 + 9)}" startDate="{local(t0)}" endDate="{local(t1)}">\n'
                f'  <WorkoutRoute {src} creationDate="{local(t1 + 14)}" startDate="{local(t0)}" endDate="{local(t1)}">\n'
                '   <FileReference path="/workout-routes/route_long.gpx"/>\n  </WorkoutRoute>\n </Workout>\n'
                '</HealthData>\n')
    with open(os.path.join(top, "workout-routes", "route_long.gpx"), "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export" '
                'xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n'
                '  <metadata>\n    <time>2025-06-30T18:00:00Z</time>\n  </metadata>\n  <trk>\n'
                '    <name>Route long</name>\n    <trkseg>')
        day = None
        for i in range(points):
            t = t0 + i
            if t // 86400 != day:
                day = t // 86400
                date = (dt.datetime(1970, 1, 1) + dt.timedelta(days=day)).strftime("%Y-%m-%d")
            s = t % 86400
            f.write(f'\n      <trkpt lon="{2.35 + (i % 10000) * 1e-5:.6f}" lat="{48.85 + (i % 7919) * 1e-5:.6f}">'
                    f'<ele>{35 + (i % 500) * 0.01:.6f}</ele><time>{date}T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}Z</time>'
                    f'<extensions><speed>2.500000</speed><course>90.000000</course><hAcc>3.000000</hAcc>'
                    f'<vAcc>2.000000</vAcc></extensions></trkpt>')
        f.write("\n    </trkseg>\n  </trk>\n</gpx>")
    return top


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="A small export with one route of N points (streamed).")
    parser.add_argument("--long-route", type=int, required=True, metavar="POINTS")
    parser.add_argument("out_dir")
    args = parser.parse_args()
    print(write_long_route(args.out_dir, args.long_route))
