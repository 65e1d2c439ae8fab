#if canImport(Glibc)
  import Glibc
#endif

/// Appends RFC 4180 fields to byte buffers: the shared primitive of every CSV output.
///
/// A field is quoted only when it must be: when it holds the delimiter, a quote, CR or LF, or
/// when it is a present but empty string. An absent value (`nil`) is an empty unquoted field, so
/// `,,` reads back as "absent" and `,"",` as "present and empty" (the convention of PostgreSQL's
/// `COPY … CSV`), which keeps `unit=""` apart from no `unit` at all.
package enum CSVEncoding {
  static let comma = UInt8(ascii: ",")
  static let quote = UInt8(ascii: "\"")
  static let newline = UInt8(ascii: "\n")
  static let carriageReturn = UInt8(ascii: "\r")

  /// Appends one field's bytes, quoted if needed; an empty field as `""` (present, empty).
  @inline(__always)
  package static func appendField<Out: ByteAppender & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to out: inout Out
  ) {
    if bytes.isEmpty {
      out.append(quote)
      out.append(quote)
      return
    }
    appendQuotingIfNeeded(bytes, to: &out)
  }

  /// The one quoting rule of every CSV healthport writes: the bytes as they are, or in quotes
  /// with each `"` doubled when they hold a comma, a quote, CR or LF. Empty stays empty.
  @inline(__always)
  package static func appendQuotingIfNeeded<Out: ByteAppender & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to out: inout Out
  ) {
    guard needsQuotes(bytes) else {
      out.append(bytes: bytes)
      return
    }
    out.append(quote)
    appendDoublingQuotes(bytes, to: &out)
    out.append(quote)
  }

  /// Appends a cell of a report table (`steps`, `stats`, `workouts` as CSV), which has no absent
  /// values: quoted if needed, nothing for an empty cell.
  package static func appendCell<Out: ByteAppender & ~Copyable>(_ text: String, to out: inout Out) {
    text.withUTF8Bytes { appendQuotingIfNeeded($0, to: &out) }
  }

  /// Appends `bytes` with each `"` doubled, copying the runs between quotes in one go.
  static func appendDoublingQuotes<Out: ByteAppender & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to out: inout Out
  ) {
    guard let base = bytes.baseAddress else { return }
    var runStart = 0
    while runStart < bytes.count,
      let found = memchr(base + runStart, Int32(quote), bytes.count - runStart)
    {
      let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
      out.append(bytes: UnsafeBufferPointer(rebasing: bytes[runStart...index]))
      out.append(quote)
      runStart = index + 1
    }
    out.append(bytes: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
  }

  /// True when the bytes hold a comma, a quote, CR or LF (``ByteScan``).
  @inline(__always)
  static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    ByteScan.contains(
      bytes,
      word: {
        ByteScan.has(comma, in: $0) || ByteScan.has(quote, in: $0) || ByteScan.has(newline, in: $0)
          || ByteScan.has(carriageReturn, in: $0)
      }, byte: { $0 == comma || $0 == quote || $0 == newline || $0 == carriageReturn })
  }

  /// Appends a string field, quoted if needed; nothing for nil.
  @inline(__always)
  package static func appendField<Out: ByteAppender & ~Copyable>(_ text: String?, to out: inout Out) {
    guard let text else { return }
    text.withUTF8Bytes { appendField($0, to: &out) }
  }

  /// Appends a device string without building it as a String first: its `<<HKDevice: 0x…`
  /// head and address never need quoting, its shared rest may (it holds commas).
  package static func appendField<Out: ByteAppender & ~Copyable>(_ device: DeviceString?, to out: inout Out) {
    guard let device else { return }
    device.rest.withUTF8Bytes { appendDevice(address: device.address, zeros: device.addressZeros, rest: $0, to: &out) }
  }

  /// The same from a device string's address and the bytes of its rest (``DeviceString/split(_:)``).
  @inline(__always)
  static func appendDevice<Out: ByteAppender & ~Copyable>(
    address: UInt64?, zeros: UInt8, rest: UnsafeBufferPointer<UInt8>, to out: inout Out
  ) {
    let quoted = needsQuotes(rest) || (address == nil && rest.isEmpty)
    appendDevice(address: address, zeros: zeros, quoted: quoted, to: &out) { out in
      if quoted { appendDoublingQuotes(rest, to: &out) } else { out.append(bytes: rest) }
    }
  }

  /// Appends a device string from its parts: in quotes when `quoted`, `<<HKDevice: 0x` and the
  /// address (when there is one), then the rest as `appendRest` writes it (its quotes doubled
  /// when `quoted`: the writers cache that encoding per device).
  @inline(__always)
  static func appendDevice<Out: ByteAppender & ~Copyable>(
    address: UInt64?, zeros: UInt8, quoted: Bool, to out: inout Out, rest appendRest: (inout Out) -> Void
  ) {
    if quoted { out.append(quote) }
    if let address {
      out.append("<<HKDevice: 0x")
      DeviceString.appendHex(address, zeros: zeros, to: &out)
    }
    appendRest(&out)
    if quoted { out.append(quote) }
  }

  /// Appends a byte-array field (the prolog), quoted if needed.
  package static func appendField<Out: ByteAppender & ~Copyable>(bytes: [UInt8], to out: inout Out) {
    bytes.withUnsafeBufferPointer { appendField($0, to: &out) }
  }

  /// Appends a decimal integer.
  @inline(__always)
  package static func appendInteger<Out: ByteAppender & ~Copyable>(_ value: Int, to out: inout Out) {
    out.appendUnsafe(maxCount: 20) { pointer in
      var magnitude = value.magnitude
      var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
      return withUnsafeMutableBytes(of: &digits) { buffer in
        var start = 24
        repeat {
          start -= 1
          buffer[start] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
          magnitude /= 10
        } while magnitude > 0
        var written = 0
        if value < 0 {
          pointer[0] = UInt8(ascii: "-")
          written = 1
        }
        for index in start..<24 {
          pointer[written] = buffer[index]
          written += 1
        }
        return written
      }
    }
  }

  /// Appends a header row and a newline, every name in quotes (`"type","sourceName",…`) whether
  /// it needs them or not, unlike data fields: a reader that guesses the quote character from the
  /// first lines (DuckDB's sniffer) then sees it, even when the first hundred thousand rows need
  /// no quotes and a later one does. healthport's readers take a header quoted or not.
  package static func appendHeader<Out: ByteAppender & ~Copyable>(_ columns: [String], to out: inout Out) {
    for (index, column) in columns.enumerated() {
      if index > 0 { out.append(comma) }
      out.append(quote)
      column.withUTF8Bytes { appendDoublingQuotes($0, to: &out) }
      out.append(quote)
    }
    out.append(newline)
  }
}

extension String {
  /// Calls `body` with the string's UTF-8 bytes: in place for native strings (the common case),
  /// else from a copy.
  @inline(__always)
  func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = self
    return try copy.withUTF8(body)
  }
}
