/// Writes the whole export bundle back (`--to zip`, `--to xml -o DIR/`): export.xml in the Health
/// app's layout from the elements, each GPX route and ECG recording in Apple's layout from its
/// side-file events (or its raw bytes when the reader found that layout would not give it back),
/// every other member's bytes as they came; members in the input's order and names.
///
/// Members arrive in the reader's order (the export first, side files after it); one whose turn
/// in the input's order has not come yet is staged (memory, then a temporary file) until it has.
/// A route or ECG rendering is staged until its member ends, since raw bytes may replace it.
final class BundleWriter: ExportSink {
  private let destination: BundleDestination
  private var exportMember = BundleMember.defaultExport
  /// The next member index to write; members before it are written.
  private var nextIndex = 0
  /// Members complete before their turn: their bytes, or nil for one left out.
  private var waiting: [Int: (BundleMember, StagedBytes?)] = [:]

  private var xml: XMLExportWriter?
  private var xmlOutput: OutputStream?
  private var exportStage: StagedBytes?
  private var exportIsRaw = false

  private var member: BundleMember?
  private var rendering: StagedBytes?
  private var raw: StagedBytes?
  private var sideBegun = false
  private var separator = UInt8(ascii: ".")
  private var scratch: [UInt8] = []

  init(destination: BundleDestination) { self.destination = destination }

  var capabilities: SinkCapabilities { [.sideFiles, .bundleMembers] }

  func begin(_ header: ExportHeader) throws {
    let export = exportMember
    let direct = export.index == nextIndex
    if direct { try destination.beginMember(export, size: nil) } else { exportStage = StagedBytes() }
    let output = OutputStream(name: export.path) { [unowned self] bytes in
      guard !exportIsRaw else { return }
      if let exportStage { try exportStage.append(bytes) } else { try destination.write(bytes) }
    }
    xmlOutput = output
    let writer = XMLExportWriter(output: output)
    xml = writer
    try writer.begin(header)
  }

  func consume(_ element: ExportElement) throws { try xml?.consume(element) }

  func consumeSideFile(_ event: SideFileEvent) throws {
    try finishExport()
    if member == nil, !sawMembers { try beginUnannounced(event) }
    guard member != nil, let rendering else { return }
    scratch.removeAll(keepingCapacity: true)
    switch event {
    case .routeBegin(let file):
      sideBegun = true
      scratch = GPXLayout.head(name: file.name, metadataTime: file.metadataTime)
    case .routePoints(let points):
      for point in points { GPXLayout.appendPoint(point, to: &scratch) }
    case .routeEnd: scratch = GPXLayout.tail
    case .ecgBegin(let recording):
      sideBegun = true
      separator = recording.decimalSeparator
      scratch = recording.headerBytes
    case .ecgSamples(let samples): ECGLayout.appendSamples(samples, separator: separator, to: &scratch)
    case .ecgEnd: break
    }
    try rendering.append(scratch)
    if unannounced, case .routeEnd = event { try endUnannounced() }
    if unannounced, case .ecgEnd = event { try endUnannounced() }
  }

  /// Side files that came without member events (a lone `.gpx` or ECG `.csv` given as the input)
  /// still go into the bundle, after export.xml, in the folder the Health app keeps them in.
  private func beginUnannounced(_ event: SideFileEvent) throws {
    let folder: String
    let name: String
    switch event {
    case .routeBegin(let file): (folder, name) = ("workout-routes", file.path)
    case .ecgBegin(let recording): (folder, name) = ("electrocardiograms", recording.path)
    default: return
    }
    let fileName = name.split(separator: "/").last.map(String.init) ?? name
    let top = exportMember.path.split(separator: "/").dropLast().joined(separator: "/")
    let path = (top.isEmpty ? "" : top + "/") + folder + "/" + fileName
    unannouncedCount += 1
    member = BundleMember(
      index: exportMember.index + unannouncedCount, path: path, kind: folder == "workout-routes" ? .route : .ecg)
    unannounced = true
    sideBegun = false
    raw = nil
    rendering = StagedBytes()
  }

  private func endUnannounced() throws {
    guard let found = member else { return }
    member = nil
    unannounced = false
    try complete(found, rendering, leftOut: !sideBegun)
    rendering = nil
  }

  private var sawMembers = false
  private var unannounced = false
  private var unannouncedCount = 0

  func consumeBundleEvent(_ event: BundleEvent) throws {
    sawMembers = true
    if case .member(let found) = event, found.kind == .export, xml == nil {
      exportMember = found
      return
    }
    if case .bytes(let bytes) = event, member == nil, xmlOutput != nil {
      return try exportRaw(bytes)
    }
    try finishExport()
    switch event {
    case .member(let found):
      member = found
      sideBegun = false
      raw = nil
      rendering = found.kind == .route || found.kind == .ecg ? StagedBytes() : nil
    case .bytes(let bytes):
      guard member != nil else { return }
      if raw == nil { raw = StagedBytes() }
      try raw?.append(bytes)
    case .memberEnd:
      guard let found = member else { return }
      member = nil
      let sideFile = found.kind == .route || found.kind == .ecg
      // A route or ECG whose events were dropped (a filter, --skip-invalid) is left out.
      let content = sideFile ? (sideBegun ? raw ?? rendering : nil) : raw ?? StagedBytes()
      try complete(found, content, leftOut: content == nil)
      rendering = nil
      raw = nil
    }
  }

  func end(_ report: ReadReport) throws {
    if xml == nil { try begin(ExportHeader(prolog: [], rootAttributes: [])) }
    try finishExport()
    for index in waiting.keys.sorted() {
      let (found, content) = waiting[index]!
      if let content { try write(found, content) }
    }
    waiting = [:]
  }

  /// export.xml's raw bytes, after its elements: the reader found that the Health app's layout
  /// would not give the file back, so what was rendered is dropped.
  private func exportRaw(_ bytes: [UInt8]) throws {
    if !exportIsRaw {
      exportIsRaw = true
      if exportStage != nil {
        exportStage = StagedBytes()
      } else {
        try destination.restartFirstMember(exportMember)
      }
    }
    if let exportStage {
      try exportStage.append(bytes)
    } else {
      try bytes.withUnsafeBytes { try destination.write($0) }
    }
  }

  /// Closes export.xml once its last element is written (the first side-file or member event).
  private func finishExport() throws {
    guard let writer = xml, let output = xmlOutput else { return }
    xmlOutput = nil
    if !exportIsRaw {
      try writer.end(ReadReport(documentName: exportMember.path, format: .xml))
      try output.flush()
    }
    if let stage = exportStage {
      exportStage = nil
      try complete(exportMember, stage, leftOut: false)
    } else {
      try destination.endMember()
      nextIndex = exportMember.index + 1
      try writeWaiting()
    }
  }

  private func complete(_ found: BundleMember, _ content: StagedBytes?, leftOut: Bool) throws {
    guard found.index == nextIndex else {
      // However many wait, at most ``waitingMemoryLimit`` of them stays in memory.
      if let content, !leftOut {
        if waitingMemory + content.memoryCount > Self.waitingMemoryLimit { try content.moveToDisk() }
        waitingMemory += content.memoryCount
      }
      waiting[found.index] = (found, leftOut ? nil : content)
      return
    }
    if let content, !leftOut { try write(found, content) }
    nextIndex = found.index + 1
    try writeWaiting()
  }

  private func writeWaiting() throws {
    while let (found, content) = waiting.removeValue(forKey: nextIndex) {
      if let content {
        waitingMemory -= content.memoryCount
        try write(found, content)
      }
      nextIndex = found.index + 1
    }
  }

  private static let waitingMemoryLimit = 2 << 20
  private var waitingMemory = 0

  private func write(_ found: BundleMember, _ content: StagedBytes) throws {
    if found.kind == .symlink {
      var target: [UInt8] = []
      try content.replay { target += $0 }
      content.remove()
      return try destination.symlink(found, target: target)
    }
    try destination.beginMember(found, size: found.kind == .directory ? nil : content.count)
    try content.replay { try destination.write($0) }
    try destination.endMember()
    content.remove()
  }
}

/// `--to zip` and `--to xml -o DIR/`: a ``BundleWriter`` and its destination.
final class BundleFormatWriter: FormatWriter {
  private let destination: BundleDestination
  let sink: ExportSink

  init(_ destination: BundleDestination) {
    self.destination = destination
    sink = BundleWriter(destination: destination)
  }

  func commit() throws { try destination.commit() }
  func abort() { destination.abort() }
  func describing(_ error: Error) -> Error { destination.describing(error) }
  func warnings(_ report: ReadReport) -> [String] {
    readWarnings(report) + ((sink as? WriterWarnings)?.writerWarnings ?? [])
  }
}

extension BundleWriter: WriterWarnings {
  /// The export XML's (an export copied raw has none).
  var writerWarnings: [String] { exportIsRaw ? [] : xml?.writerWarnings ?? [] }
}
