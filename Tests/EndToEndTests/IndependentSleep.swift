import Foundation

/// `healthport sleep` computed by a separate implementation (Python 3, standard library only:
/// ElementTree, zoneinfo), reading the XML itself; and a generator of exports whose nights mix a
/// Watch (stages, HKTimeZone), AutoSleep, Clock and an iPhone, with rewrites, naps, a DST change
/// and back-filled document order.
enum IndependentSleep {
  static let script = #"""
    import sys, json, re, zipfile, datetime, random, math
    import xml.etree.ElementTree as ET
    from zoneinfo import ZoneInfo

    def load(path):
        if path.endswith(".zip"):
            z = zipfile.ZipFile(path)
            for n in z.namelist():
                d = z.read(n)
                if b"<HealthData" in d[:1 << 20] and not n.startswith("__MACOSX"):
                    data = d
                    break
        else:
            data = open(path, "rb").read()
        data = re.sub(rb"<!DOCTYPE.*?\]>", b"", data, count=1, flags=re.S)
        return ET.fromstring(data)

    def product(el):
        dev = el.get("device") or ""
        name = el.get("sourceName") or ""
        fields = dict(re.findall(r"(model|hardware):([^,>]*)", dev))
        for p in ["Watch", "iPhone", "iPad", "iPod"]:
            if fields.get("model", "").startswith(p) or fields.get("hardware", "").startswith(p):
                return p
        for p in ["Watch", "iPhone", "iPad", "iPod"]:
            if p.lower() in name.lower():
                return p
        return fields.get("model") or None

    def parse(s):
        d = datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S %z")
        return int(d.timestamp()), int(d.utcoffset().total_seconds())

    def offset_at(zone, t):
        return int(datetime.datetime.fromtimestamp(t, zone).utcoffset().total_seconds())

    def zone_of(text):
        m = re.fullmatch(r"([+-])(\d\d):?(\d\d)", text)
        if m:
            sec = int(m.group(2)) * 3600 + int(m.group(3)) * 60
            return datetime.timezone(datetime.timedelta(seconds=-sec if m.group(1) == "-" else sec))
        if text.upper() == "UTC":
            return datetime.timezone.utc
        return ZoneInfo(text)

    STATES = {"InBed": 0, "AsleepCore": 1, "AsleepDeep": 2, "AsleepREM": 3, "Asleep": 4, "AsleepUnspecified": 4,
              "Awake": 5, "0": 0, "1": 4, "2": 5, "3": 1, "4": 2, "5": 3}

    def nights(root, tz, priority):
        items = []
        for i, r in enumerate(x for x in root.findall("Record") if x.get("type") == "HKCategoryTypeIdentifierSleepAnalysis"):
            v = r.get("value") or ""
            if v.startswith("HKCategoryValueSleepAnalysis"):
                v = v[len("HKCategoryValueSleepAnalysis"):]
            if v not in STATES:
                continue
            s, so = parse(r.get("startDate"))
            e, eo = parse(r.get("endDate"))
            zone = tz
            if zone is None:
                for m in r.findall("MetadataEntry"):
                    if m.get("key") == "HKTimeZone":
                        try:
                            zone = ZoneInfo(m.get("value"))
                        except Exception:
                            zone = None
                        break
            ls = offset_at(zone, s) if zone else so
            le = offset_at(zone, e) if zone else eo
            items.append(dict(i=i, name=r.get("sourceName"), product=product(r), s=s, e=max(s, e), we=e,
                              state=STATES[v], value=r.get("value"), st=r.get("startDate"), et=r.get("endDate"),
                              ls=ls, le=le))
        prio = [p.lower() for p in priority]
        others = []
        def listed(it):
            p, n = (it["product"] or "").lower(), it["name"].lower()
            for k, q in enumerate(prio):
                if q == p or q == n:
                    return k
            return None
        for it in items:
            if listed(it) is None and (it["product"] or "").lower() not in ("watch", "iphone") and it["name"] not in others:
                others.append(it["name"])
        def rank(it):
            k = listed(it)
            if k is not None: return k
            p = (it["product"] or "").lower()
            if p == "watch": return len(prio)
            if p == "iphone": return len(prio) + 1
            return len(prio) + 2 + others.index(it["name"])
        seen, kept = set(), []
        for it in items:
            key = (it["name"], it["s"], it["we"], it["value"])
            if key not in seen:
                seen.add(key)
                kept.append(it)
        groups = {}
        for it in kept:
            groups.setdefault((it["s"] + it["ls"] + 21600) // 86400, []).append(it)
        out = []
        for n in sorted(groups):
            g = groups[n]
            sec = [0] * 6
            spans = sorted((it["s"], it["e"]) for it in g if it["state"] == 0)
            cur = None
            for a, b in spans:
                if cur and a <= cur[1]:
                    cur = (cur[0], max(cur[1], b))
                else:
                    if cur: sec[0] += cur[1] - cur[0]
                    cur = (a, b)
            if cur: sec[0] += cur[1] - cur[0]
            layer = [it for it in g if it["state"] != 0]
            cuts = sorted(set([it["s"] for it in layer] + [it["e"] for it in layer]))
            for a, b in zip(cuts, cuts[1:]):
                cover = [it for it in layer if it["s"] <= a < it["e"]]
                if cover:
                    best = min(cover, key=lambda it: (rank(it), -it["s"], -it["i"]))
                    sec[best["state"]] += b - a
            bed = min(g, key=lambda it: (it["s"], it["i"]))
            wake = max(g, key=lambda it: (it["e"], it["i"]))
            evening = (n - 1) * 86400 + 64800
            names = []
            for it in sorted(g, key=lambda it: it["i"]):
                if it["name"] not in names: names.append(it["name"])
            out.append(dict(day=n, night=str(datetime.date(1970, 1, 1) + datetime.timedelta(days=n)),
                            minutes=[sec[0], sec[1] + sec[2] + sec[3] + sec[4]] + sec[1:],
                            bedtime=bed["st"], wake_time=wake["et"],
                            bed_after=(bed["s"] + bed["ls"] - evening) / 60, wake_after=(wake["e"] + wake["le"] - evening) / 60,
                            sources="; ".join(names)))
        return out

    COLS = ["in_bed_min", "asleep_min", "core_min", "deep_min", "rem_min", "unspecified_min", "awake_min"]

    def clock(m):
        t = (math.floor(m + 0.5) + 18 * 60) % 1440
        return "%02d:%02d" % (t // 60, t % 60)

    def sleep(path, tz, by, priority):
        rows = nights(load(path), zone_of(tz) if tz else None, priority)
        if by == "night":
            return [dict([("night", r["night"])] + [(c, s / 60) for c, s in zip(COLS, r["minutes"])]
                         + [("bedtime", r["bedtime"]), ("wake_time", r["wake_time"]), ("sources", r["sources"])])
                    for r in rows]
        periods = {}
        for r in rows:
            d = datetime.date(1970, 1, 1) + datetime.timedelta(days=r["day"])
            if by == "week":
                y, w, _ = d.isocalendar()
                key = "%04d-W%02d" % (y, w)
            else:
                key = d.strftime("%Y-%m")
            periods.setdefault(key, []).append(r)
        out = []
        for key in sorted(periods):
            g = periods[key]
            row = {"period": key, "nights": len(g)}
            for k, c in enumerate(COLS):
                row[c] = sum(r["minutes"][k] for r in g) / 60 / len(g)
            row["bedtime"] = clock(sum(r["bed_after"] for r in g) / len(g))
            row["wake_time"] = clock(sum(r["wake_after"] for r in g) / len(g))
            out.append(row)
        return out

    WATCH = "&lt;&lt;HKDevice: 0x%x&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.1&gt;"
    PHONE = "&lt;&lt;HKDevice: 0x%x&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.1&gt;"

    def generate(out, seed, count):
        R = random.Random(seed)
        paris = ZoneInfo("Europe/Paris")
        written = datetime.timezone(datetime.timedelta(hours=1))  # the export was made in winter
        def ds(t):
            return datetime.datetime.fromtimestamp(t, written).strftime("%Y-%m-%d %H:%M:%S %z")
        def rec(source, dev, s, e, v, zone=None, created=300):
            d = ' device="%s"' % (dev % R.randrange(1 << 32)) if dev else ""
            head = ('<Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="%s"%s creationDate="%s" '
                    'startDate="%s" endDate="%s" value="HKCategoryValueSleepAnalysis%s"' % (source, d, ds(e + created), ds(s), ds(e), v))
            if zone:
                return ' %s>\n  <MetadataEntry key="HKTimeZone" value="%s"/>\n </Record>\n' % (head, zone)
            return ' %s/>\n' % head
        watch, auto, clock_, phone = [], [], [], []
        base = int(datetime.datetime(2024, 3, 20, 21, 0, tzinfo=paris).timestamp())
        for n in range(count):
            start = base + n * 86400 + R.randrange(4 * 3600)
            end = start + R.randrange(5 * 3600, 9 * 3600)
            t = start
            while t < end:
                te = min(end, t + R.randrange(240, 3000))
                if R.random() < 0.9:
                    watch.append(rec("Mo’s Apple Watch", WATCH, t, te, R.choice(["AsleepCore", "AsleepCore", "AsleepDeep", "AsleepREM", "Awake"]), "Europe/Paris"))
                t = te
            if R.random() < 0.3:
                ns = start + 15 * 3600 + R.randrange(3 * 3600)
                watch.append(rec("Mo’s Apple Watch", WATCH, ns, ns + R.randrange(600, 3600), "AsleepUnspecified", "Europe/Paris"))
            a = start - R.randrange(3600)
            while a < end + 1800:
                ae = a + R.randrange(600, 7200)
                value = R.choice(["Asleep", "Asleep", "Awake"])
                auto.append(rec("AutoSleep", None, a, ae, value))
                if R.random() < 0.2:  # a rewrite: the same sample, created again later
                    auto.append(rec("AutoSleep", None, a, ae, value, created=4000))
                a = ae + R.randrange(0, 900)
            if R.random() < 0.7:
                clock_.append(rec("Clock", None, start - 1200, end + R.randrange(1800), "InBed"))
            if R.random() < 0.5:
                phone.append(rec("Mo’s iPhone", PHONE, start - 600, end + 600, "InBed"))
        steps = ' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Mo’s iPhone" unit="count" startDate="%s" endDate="%s" value="12"/>\n' % (ds(base), ds(base + 60))
        # Document order as apps write: Watch and iPhone as the nights go, AutoSleep back-filled after, Clock last.
        body = steps + "".join(watch[: len(watch) // 2] + phone + watch[len(watch) // 2:] + auto + clock_)
        with open(out, "w", encoding="utf-8") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n <ExportDate value="%s"/>\n%s</HealthData>\n' % (ds(base + count * 86400), body))

    if sys.argv[1] == "generate":
        generate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        print(json.dumps(sleep(sys.argv[2], sys.argv[3] or None, sys.argv[4], [p for p in sys.argv[5].split(",") if p])))
    """#

  static func python(_ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out.json")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "python failed on \(arguments)"])
    }
    return try Data(contentsOf: outURL)
  }

  /// Writes a generated export of `nights` nights to `path`.
  static func generate(_ path: String, seed: Int, nights: Int) throws {
    _ = try python(["generate", path, String(seed), String(nights)])
  }

  /// The rows `healthport sleep --format json` should print.
  static func sleep(_ path: String, tz: String = "", by: String = "night", priority: String = "") throws
    -> [[String: Any]]
  {
    try JSONSerialization.jsonObject(with: python(["sleep", path, tz, by, priority])) as? [[String: Any]] ?? []
  }
}
