#if canImport(Glibc)
  import Glibc
#endif

/// Appends RFC 4180 fields to byte buffers: the shared primitive of every CSV output.
///
/// A field is quoted only when it must be: when it holds the delimiter, a quote, CR or LF, or
/// when it is a present but empty string. An absent value (`nil`) is an empty unquoted field, so
/// `,,` reads back as "absent" and `,"",` as "present and empty" (the convention of PostgreSQL's
/// `COPY … CSV`), which keeps `unit=""` apart from no `unit` at all.
public enum CSVEncoding {
  static let comma = UInt8(ascii: ",")
  static let quote = UInt8(ascii: "\"")
  static let newline = UInt8(ascii: "\n")
  static let carriageReturn = UInt8(ascii: "\r")

  /// Appends one field's bytes, quoted if needed.
  @inline(__always)
  public static func appendField(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    if bytes.isEmpty {
      out.append(quote)
      out.append(quote)
      return
    }
    guard needsQuotes(bytes) else {
      out.append(contentsOf: bytes)
      return
    }
    out.append(quote)
    appendDoublingQuotes(bytes, to: &out)
    out.append(quote)
  }

  /// Appends `bytes` with each `"` doubled, copying the runs between quotes in one go.
  static func appendDoublingQuotes(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    guard let base = bytes.baseAddress else { return }
    var runStart = 0
    while runStart < bytes.count,
      let found = memchr(base + runStart, Int32(quote), bytes.count - runStart)
    {
      let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...index]))
      out.append(quote)
      runStart = index + 1
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
  }

  /// True when the bytes hold a comma, a quote, CR or LF. Scans eight bytes per step (the
  /// "has zero byte" bit trick on the bytes XORed with each special byte's pattern).
  @inline(__always)
  static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = bytes.count
    guard let base = bytes.baseAddress else { return false }
    var index = 0
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
    while index + 8 <= count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      if hasZero(word ^ (ones &* 0x2C)) || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x0A))
        || hasZero(word ^ (ones &* 0x0D))
      {
        return true
      }
      index += 8
    }
    while index < count {
      let byte = base[index]
      if byte == comma || byte == quote || byte == newline || byte == carriageReturn { return true }
      index += 1
    }
    return false
  }

  /// Appends a string field, quoted if needed; nothing for nil.
  @inline(__always)
  public static func appendField(_ text: String?, to out: inout [UInt8]) {
    guard var text else { return }
    text.withUTF8 { appendField($0, to: &out) }
  }

  /// Appends a device string without building it as a String first: its `<<HKDevice: 0x…`
  /// head and address never need quoting, its shared rest may (it holds commas).
  public static func appendField(_ device: DeviceString?, to out: inout [UInt8]) {
    guard let device else { return }
    var rest = device.rest
    rest.withUTF8 { bytes in
      let quoted = needsQuotes(bytes) || (device.address == nil && bytes.isEmpty)
      if quoted { out.append(quote) }
      if let address = device.address {
        out.append(contentsOf: DeviceString.head)
        DeviceString.appendHex(address, to: &out)
      }
      if quoted {
        appendDoublingQuotes(bytes, to: &out)
        out.append(quote)
      } else {
        out.append(contentsOf: bytes)
      }
    }
  }

  /// Appends a byte-array field (the prolog), quoted if needed.
  public static func appendField(bytes: [UInt8], to out: inout [UInt8]) {
    bytes.withUnsafeBufferPointer { appendField($0, to: &out) }
  }

  /// Appends a date as the export writes it; nothing for nil. Dates never need quotes.
  @inline(__always)
  public static func appendField(_ date: HealthDate?, to out: inout [UInt8]) {
    date?.append(to: &out)
  }

  /// Appends a decimal integer.
  @inline(__always)
  public static func appendInteger(_ value: Int, to out: inout [UInt8]) {
    if value < 0 {
      out.append(UInt8(ascii: "-"))
      appendInteger(-value, to: &out)
      return
    }
    if value < 10 {
      out.append(UInt8(48 + value))
      return
    }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var count = 0
    var rest = value
    withUnsafeMutableBytes(of: &digits) { buffer in
      while rest > 0 {
        buffer[count] = UInt8(48 + rest % 10)
        rest /= 10
        count += 1
      }
      for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
    }
  }

  /// Appends a header row (names never need quotes) and a newline.
  public static func appendHeader(_ columns: [String], to out: inout [UInt8]) {
    for (index, column) in columns.enumerated() {
      if index > 0 { out.append(comma) }
      out.append(contentsOf: column.utf8)
    }
    out.append(newline)
  }
}

/// One CSV file of a `--split` folder: a byte buffer flushed in blocks.
///
/// Many record types mean many tables, so a table keeps its file descriptor open only while the
/// writer's open-file budget allows; past it, each flush opens the file for appending, writes
/// and closes it again. Flushes happen every ``blockSize`` bytes, so that costs a few system
/// calls per 64 KiB.
final class CSVTableFile {
  static let blockSize = 64 << 10

  let path: String
  var buffer: [UInt8] = []
  private(set) var rows = 0
  private var fileDescriptor: Int32 = -1
  private var created = false

  init(path: String, header: [String]) {
    self.path = path
    buffer.reserveCapacity(Self.blockSize + 4096)
    CSVEncoding.appendHeader(header, to: &buffer)
  }

  deinit { if fileDescriptor >= 0 { close(fileDescriptor) } }

  /// Ends a row; flushes when the block is full.
  @inline(__always)
  func endRow(budget: inout Int) throws {
    buffer.append(CSVEncoding.newline)
    rows += 1
    if buffer.count >= Self.blockSize { try flush(budget: &budget) }
  }

  /// Writes out the buffer. `budget` is the number of descriptors the writer may still keep open.
  func flush(budget: inout Int) throws {
    guard !buffer.isEmpty else { return }
    var fd = fileDescriptor
    if fd < 0 {
      let flags = O_WRONLY | O_CLOEXEC | (created ? O_APPEND : (O_CREAT | O_TRUNC))
      fd = open(path, flags, 0o644)
      guard fd >= 0 else { throw Self.error(path, "cannot create") }
      created = true
      if budget > 0 {
        budget -= 1
        fileDescriptor = fd
      }
    }
    defer { if fileDescriptor < 0 { close(fd) } }
    try buffer.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          throw Self.error(path, "cannot write")
        }
        offset += n
      }
    }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Flushes and closes.
  func finish(budget: inout Int) throws {
    try flush(budget: &budget)
    if fileDescriptor >= 0 {
      let status = close(fileDescriptor)
      fileDescriptor = -1
      budget += 1
      guard status == 0 else { throw Self.error(path, "cannot write") }
    }
  }

  static func error(_ path: String, _ what: String) -> HealthPortError {
    HealthPortError(.failure, "\(path): error: \(what): \(String(cString: strerror(errno)))")
  }
}

/// Appends dates as the export writes them (`YYYY-MM-DD HH:MM:SS ±HHMM`), faster than
/// ``HealthDate/append(to:)`` on the hot path: the 25 bytes are built on the stack and appended
/// at once, and the calendar conversion is cached for the last local day (samples come in
/// runs of nearby dates).
struct CSVDateFormatter {
  private var lastDay = Int.min
  private var dayBytes: (UInt64, UInt16) = (0, 0)

  @inline(__always)
  mutating func append(_ date: HealthDate, to out: inout [UInt8]) {
    let local = date.secondsSince1970 + Int64(date.offsetSeconds)
    let day = HealthDate.floorDiv(local, 86_400)
    if day != lastDay {
      let (year, month, dayOfMonth) = HealthDate.civil(fromDays: day)
      guard (0...9999).contains(year) else {
        date.append(to: &out)
        return
      }
      withUnsafeMutableBytes(of: &dayBytes) { b in
        b[0] = UInt8(48 + year / 1000)
        b[1] = UInt8(48 + year / 100 % 10)
        b[2] = UInt8(48 + year / 10 % 10)
        b[3] = UInt8(48 + year % 10)
        b[4] = 0x2D
        b[5] = UInt8(48 + month / 10)
        b[6] = UInt8(48 + month % 10)
        b[7] = 0x2D
        b[8] = UInt8(48 + dayOfMonth / 10)
        b[9] = UInt8(48 + dayOfMonth % 10)
      }
      lastDay = day
    }
    let secondOfDay = Int(local - Int64(day) * 86_400)
    let offset = Int(date.offsetSeconds)
    let offsetMagnitude = abs(offset)
    var bytes: (UInt64, UInt64, UInt64, UInt8) = (0, 0, 0, 0)
    withUnsafeMutableBytes(of: &bytes) { b in
      withUnsafeBytes(of: dayBytes) { d in
        for index in 0..<10 { b[index] = d[index] }
      }
      let hour = secondOfDay / 3600
      let minute = secondOfDay / 60 % 60
      let second = secondOfDay % 60
      b[10] = 0x20
      b[11] = UInt8(48 + hour / 10)
      b[12] = UInt8(48 + hour % 10)
      b[13] = 0x3A
      b[14] = UInt8(48 + minute / 10)
      b[15] = UInt8(48 + minute % 10)
      b[16] = 0x3A
      b[17] = UInt8(48 + second / 10)
      b[18] = UInt8(48 + second % 10)
      b[19] = 0x20
      b[20] = offset < 0 ? 0x2D : 0x2B
      let offsetHours = offsetMagnitude / 3600 % 100
      let offsetMinutes = offsetMagnitude / 60 % 60
      b[21] = UInt8(48 + offsetHours / 10)
      b[22] = UInt8(48 + offsetHours % 10)
      b[23] = UInt8(48 + offsetMinutes / 10)
      b[24] = UInt8(48 + offsetMinutes % 10)
      out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[0..<25]))
    }
  }

  @inline(__always)
  mutating func append(_ date: HealthDate?, to out: inout [UInt8]) {
    if let date { append(date, to: &out) }
  }
}
