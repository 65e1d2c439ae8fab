/// Names taken from an export's data (a record type, a workout's activity) made safe as part of
/// a file name: only ASCII letters, digits, `_`, `-` and `.` are kept, anything else (a `/`, a
/// control character, a non-ASCII byte) becomes `_`, so that a crafted name can neither leave
/// its folder nor upset a shell.
package enum FileNames {
  package static func sanitized(_ text: some StringProtocol) -> String {
    var bytes = Array(text.utf8)
    for index in bytes.indices {
      let byte = bytes[index]
      let allowed =
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
      if !allowed { bytes[index] = UInt8(ascii: "_") }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
