import Foundation
import TestSupport
import Testing

/// Reads a chart the way its users' programs do, independently of healthport: Python's
/// ElementTree parses the SVG (for a page, the SVG inside it), `html.parser` the data table, and a
/// PNG decoder written with `zlib` counts the pixels chromium painted. Also parses the matching
/// command's CSV with Python's `csv`.
enum ChartProbe {
  static let script = #"""
    import sys, json, csv, zlib, struct, re, io
    import xml.etree.ElementTree as ET
    from html.parser import HTMLParser

    SVG = "{http://www.w3.org/2000/svg}"

    def chart(path):
        text = open(path, encoding="utf-8").read()
        out = {"table": None, "header": None}
        if path.lower().endswith((".html", ".htm")):
            start, end = text.index("<svg"), text.index("</svg>") + len("</svg>")
            svg_text = text[start:end]
            out["header"], out["table"] = table(text)
        else:
            svg_text = text
        root = ET.fromstring(svg_text.encode("utf-8"))
        out["title"] = root.find(SVG + "title").text
        out["desc"] = root.find(SVG + "desc").text
        out["unit"] = root.get("data-unit")
        marks, parts = [], []
        for el in root.iter():
            if el.get("data-period") is not None:
                marks.append([[k[5:], v] for k, v in el.attrib.items() if k.startswith("data-")])
                parts.append([[c.get("data-part"), c.get("data-part-value")] for c in el if c.get("data-part")])
        out["marks"] = marks
        out["parts"] = parts
        fills = {}
        for el in root.iter():
            if el.get("data-part"):
                fills.setdefault(el.get("data-part"), set()).add(el.get("fill"))
        out["partFills"] = {k: sorted(v) for k, v in fills.items()}
        out["markerStrokes"] = sorted({el.get("stroke") for el in root.iter() if el.get("class") == "marker"})
        legend = []
        for group in root.iter(SVG + "g"):
            if group.get("class") == "legend":
                swatches = [c.get("fill") or c.get("stroke") for c in group if c.tag == SVG + "rect"]
                names = [c.text for c in group if c.tag == SVG + "text"]
                legend = [list(pair) for pair in zip(names, swatches)]
        out["legend"] = legend
        out["ticks"] = [{"x": float(t.get("x")), "label": t.text} for t in root.iter(SVG + "text")
                        if t.get("class") in ("tick", "year")]
        return out

    class Table(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.header, self.cell, self.in_body, self.in_head = [], [], None, False, False
        def handle_starttag(self, tag, attrs):
            if tag == "tbody": self.in_body = True
            elif tag == "thead": self.in_head = True
            elif tag == "tr" and self.in_body: self.rows.append([])
            elif tag in ("td", "th") and (self.in_body or self.in_head): self.cell = ""
        def handle_endtag(self, tag):
            if tag == "tbody": self.in_body = False
            elif tag == "thead": self.in_head = False
            elif tag in ("td", "th") and self.cell is not None:
                (self.header if self.in_head else self.rows[-1]).append(self.cell)
                self.cell = None
        def handle_data(self, data):
            if self.cell is not None: self.cell += data

    def table(text):
        parser = Table()
        parser.feed(text)
        return parser.header, parser.rows

    def png(path, colors):
        data = open(path, "rb").read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
        pos, idat = 8, b""
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b"IHDR":
                width, height, depth, color = struct.unpack(">IIBB", body[:10])
            elif kind == b"IDAT":
                idat += body
            pos += 12 + length
        assert depth == 8, "bit depth %d" % depth
        channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
        raw = zlib.decompress(idat)
        stride = width * channels
        previous = bytearray(stride)
        targets = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in colors]
        counts = [0] * len(targets)
        nonwhite, index = 0, 0
        for _ in range(height):
            kind = raw[index]
            line = bytearray(raw[index + 1:index + 1 + stride])
            index += 1 + stride
            if kind == 1:
                for i in range(channels, stride): line[i] = (line[i] + line[i - channels]) & 255
            elif kind == 2:
                line = bytearray((x + y) & 255 for x, y in zip(line, previous))
            elif kind == 3:
                for i in range(stride):
                    a = line[i - channels] if i >= channels else 0
                    line[i] = (line[i] + (a + previous[i]) // 2) & 255
            elif kind == 4:
                for i in range(stride):
                    a = line[i - channels] if i >= channels else 0
                    b = previous[i]
                    c = previous[i - channels] if i >= channels else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            if channels < 3:
                nonwhite += sum(1 for v in line[::channels] if v < 240)
            else:
                for r, g, b in zip(line[0::channels], line[1::channels], line[2::channels]):
                    if r < 240 or g < 240 or b < 240:
                        nonwhite += 1
                        for n, t in enumerate(targets):
                            if abs(r - t[0]) + abs(g - t[1]) + abs(b - t[2]) <= 24: counts[n] += 1
            previous = line
        return {"width": width, "height": height, "bytes": len(data), "nonwhite": nonwhite / (width * height),
                "colors": counts}

    mode = sys.argv[1]
    if mode == "chart":
        print(json.dumps(chart(sys.argv[2])))
    elif mode == "csv":
        print(json.dumps(list(csv.DictReader(io.StringIO(open(sys.argv[2], encoding="utf-8").read())))))
    elif mode == "png":
        print(json.dumps(png(sys.argv[2], sys.argv[3:])))
    """#

  static func run(_ arguments: [String]) throws -> Any {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out.json")
    let errURL = directory.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      let message = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
      throw ProbeError(description: "python \(arguments.first ?? "") failed: \(message)")
    }
    return try JSONSerialization.jsonObject(with: Data(contentsOf: outURL))
  }

  /// A chart file: its marks' `data-…` attributes (in order, `data-` dropped), date ticks, title,
  /// description and, for a page, the table's rows.
  struct Chart {
    var marks: [[(String, String)]]
    var ticks: [(x: Double, label: String)]
    var title: String
    var desc: String
    var table: [[String]]?
    /// The table's column headings, for a page.
    var header: [String]? = nil
    /// The stacked parts inside each mark: `data-part` and `data-part-value`.
    var parts: [[(String, String)]] = []
    /// Every `fill` the parts of each `data-part` name are drawn in.
    var partFills: [String: [String]] = [:]
    /// Every `stroke` of the lines across the bars (`class="marker"`).
    var markerStrokes: [String] = []
    /// The legend's entries: name and swatch colour.
    var legend: [(name: String, color: String)] = []

    /// Each mark's attributes as a dictionary.
    var markValues: [[String: String]] { marks.map { Dictionary($0, uniquingKeysWith: { first, _ in first }) } }
  }

  static func chart(_ file: URL) throws -> Chart {
    let object = try run(["chart", file.path]) as? [String: Any] ?? [:]
    let marks = (object["marks"] as? [[[String]]] ?? []).map { $0.map { ($0[0], $0[1]) } }
    let ticks = (object["ticks"] as? [[String: Any]] ?? []).map {
      (x: $0["x"] as? Double ?? 0, label: $0["label"] as? String ?? "")
    }
    let parts = (object["parts"] as? [[[String]]] ?? []).map { $0.map { ($0[0], $0[1]) } }
    let legend = (object["legend"] as? [[String]] ?? []).map { (name: $0[0], color: $0[1]) }
    return Chart(
      marks: marks, ticks: ticks, title: object["title"] as? String ?? "", desc: object["desc"] as? String ?? "",
      table: object["table"] as? [[String]], header: object["header"] as? [String], parts: parts,
      partFills: object["partFills"] as? [String: [String]] ?? [:],
      markerStrokes: object["markerStrokes"] as? [String] ?? [], legend: legend)
  }

  static func csv(_ text: String) throws -> [[String: String]] {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("rows.csv")
    try Data(text.utf8).write(to: file)
    return try run(["csv", file.path]) as? [[String: String]] ?? []
  }

  struct Picture {
    var width: Int
    var height: Int
    var bytes: Int
    /// The share of pixels darker than near-white.
    var nonWhite: Double
    /// Pixels of each colour asked for (within a small distance).
    var colorCounts: [Int]
  }

  /// Decodes a PNG, counting the pixels of `colors` (`#rrggbb`).
  static func png(_ file: URL, colors: [String] = []) throws -> Picture {
    let object = try run(["png", file.path] + colors) as? [String: Any] ?? [:]
    return Picture(
      width: object["width"] as? Int ?? 0, height: object["height"] as? Int ?? 0, bytes: object["bytes"] as? Int ?? 0,
      nonWhite: object["nonwhite"] as? Double ?? 0, colorCounts: object["colors"] as? [Int] ?? [])
  }

  struct ProbeError: Error, CustomStringConvertible { var description: String }
}

/// Debian's chromium, headless: renders a chart file to PNG as a browser shows it.
enum Chromium {
  static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  /// CI (`CI` set) and `HEALTHPORT_REQUIRE_FIXTURES=1` make a missing chromium a failure.
  static var skippingForbidden: Bool {
    let ci = ProcessInfo.processInfo.environment["CI"] ?? ""
    return TestEnvironment.skippingForbidden || !ci.isEmpty
  }

  static let skipMessage =
    "chromium is not installed (scripts/install-deps.sh installs it): browser rendering skipped (CI fails instead)"

  /// Screenshots `file` in a `width`×`height` window into `png`.
  static func screenshot(_ file: URL, to png: URL, width: Int, height: Int) throws {
    _ = try run(file, width: width, height: height, ["--screenshot=\(png.path)"])
    guard FileManager.default.fileExists(atPath: png.path) else {
      throw ChartProbe.ProbeError(description: "chromium wrote no screenshot of \(file.lastPathComponent)")
    }
  }

  /// The DOM of `file` after its scripts ran, laid out in a `width`×`height` window (`--dump-dom`).
  static func dumpDOM(_ file: URL, width: Int, height: Int) throws -> String {
    try run(file, width: width, height: height, ["--dump-dom"])
  }

  /// Runs chromium headless on `file` with `extra` arguments; returns its standard output.
  private static func run(_ file: URL, width: Int, height: Int, _ extra: [String]) throws -> String {
    guard let path else { throw ChartProbe.ProbeError(description: skipMessage) }
    let profile = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: profile) }
    let log = profile.appendingPathComponent("log")
    let output = profile.appendingPathComponent("stdout")
    for url in [log, output] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments =
      [
        "120", path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
        "--no-default-browser-check", "--disable-extensions", "--user-data-dir=\(profile.path)",
        "--window-size=\(width),\(height)",
      ] + extra + [file.absoluteString]
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = try FileHandle(forWritingTo: log)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      let output = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
      throw ChartProbe.ProbeError(description: "chromium failed (\(process.terminationStatus)): \(output.suffix(2000))")
    }
    return String(decoding: try Data(contentsOf: output), as: UTF8.self)
  }
}

extension Trait where Self == ConditionTrait {
  /// For tests that render in chromium: skipped with a message where it is missing, run (and so
  /// failing) under CI or `HEALTHPORT_REQUIRE_FIXTURES=1`.
  static var needsChromium: Self {
    .enabled(if: Chromium.path != nil || Chromium.skippingForbidden, Comment(rawValue: Chromium.skipMessage))
  }
}
