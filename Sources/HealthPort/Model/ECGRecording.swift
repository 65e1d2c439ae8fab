/// An ECG recording (`electrocardiograms/ecg_2023-03-04.csv`), as its samples begin: the header
/// block of the file. export.xml holds no waveform, so a recording stands on its own, identified
/// by its file name and `Recorded Date`.
public struct ECGRecording: Hashable, Sendable {
  /// Relative to the export folder, with a leading slash (`/electrocardiograms/ecg_2023-03-04.csv`).
  public var path: String
  /// Where it was read, for messages.
  package var displayName: String
  /// Every `key,value` line of the header block in file order, values unquoted.
  package var header: [(key: String, value: String)] = []
  /// `.` or `,`: the decimal separator the file's samples use (a `,` locale's phone writes
  /// `-265,868`); `.` when no sample shows one.
  package var decimalSeparator: UInt8 = UInt8(ascii: ".")
  /// The header block's bytes as read (every line before the first sample, blank ones and line
  /// ends included), for writing the file back byte for byte.
  package var headerBytes: [UInt8] = []

  package init(path: String, displayName: String) {
    self.path = path
    self.displayName = displayName
  }

  /// The value of the header line `key` (as Apple writes it in English), nil without one.
  package func value(_ key: String) -> String? { header.first { $0.key == key }?.value }

  package var name: String? { value("Name") }
  package var dateOfBirth: String? { value("Date of Birth") }
  /// `2023-03-04 20:55:07 -0500`, as written.
  public var recordedDate: String? { value("Recorded Date") }
  package var classification: String? { value("Classification") }
  package var symptoms: String? { value("Symptoms") }
  package var softwareVersion: String? { value("Software Version") }
  package var device: String? { value("Device") }
  /// As written: `512 hertz`, `512.844 hertz`.
  package var sampleRate: String? { value("Sample Rate") }
  package var lead: String? { value("Lead") }
  /// `µV` in Apple's files; the samples are in it.
  public var unit: String? { value("Unit") }

  /// The sample rate in hertz: the leading number of `sampleRate`, read with the file's
  /// decimal separator.
  public var sampleRateHertz: Double? {
    guard let text = sampleRate else { return nil }
    let number = text.prefix { $0.isNumber || $0 == "." || $0 == "," }
    return Double(String(number.map { $0 == "," ? "." : $0 }))
  }

  /// Equal when the path, name, decimal separator and header are.
  public static func == (lhs: ECGRecording, rhs: ECGRecording) -> Bool {
    lhs.path == rhs.path && lhs.displayName == rhs.displayName && lhs.decimalSeparator == rhs.decimalSeparator
      && lhs.headerBytes == rhs.headerBytes
      && lhs.header.elementsEqual(rhs.header) { $0.key == $1.key && $0.value == $1.value }
  }

  /// Hashes the path and the header, as `==` compares them.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(path)
    for (key, value) in header {
      hasher.combine(key)
      hasher.combine(value)
    }
  }
}

/// What a side file of the export hands a sink, in order: a route's or recording's beginning,
/// its points or samples in bounded batches (so that a 10-million-point route stays in flat
/// memory), and its end.
public enum SideFileEvent: Sendable {
  /// A GPX route begins.
  case routeBegin(RouteFile)
  /// At most ``SideFileEvent/batchSize`` points, in file order.
  case routePoints([RoutePoint])
  /// The route's point count.
  case routeEnd(points: Int)
  /// An ECG recording begins: its path and header.
  case ecgBegin(ECGRecording)
  /// At most ``SideFileEvent/batchSize`` samples, in file order, each the text as written with
  /// `.` as its decimal separator (`-265,868` becomes `-265.868`), in the recording's unit.
  case ecgSamples([String])
  /// The recording's sample count.
  case ecgEnd(samples: Int)

  /// Points or samples per batch.
  public static let batchSize = 4096
}
