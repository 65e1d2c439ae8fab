/// An ECG recording in the Health app's CSV layout: its header block as read
/// (``ECGRecording/headerBytes``), then one sample a line, LF after each, with the file's own
/// decimal separator (`-265,868` in a `,` locale).
enum ECGLayout {
  /// One sample's line (without its line feed): `sample` is written with `.`.
  static func line(_ sample: String, separator: UInt8) -> [UInt8] {
    separator == 0x2C ? sample.utf8.map { $0 == 0x2E ? 0x2C : $0 } : Array(sample.utf8)
  }

  static func appendSamples(_ samples: [String], separator: UInt8, to out: inout [UInt8]) {
    for sample in samples {
      out += line(sample, separator: separator)
      out.append(0x0A)
    }
  }
}
