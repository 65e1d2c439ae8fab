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
  public static func appendField<Out: ByteAppender & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to out: inout Out
  ) {
    if bytes.isEmpty {
      out.append(quote)
      out.append(quote)
      return
    }
    guard needsQuotes(bytes) else {
      out.append(bytes: bytes)
      return
    }
    out.append(quote)
    appendDoublingQuotes(bytes, to: &out)
    out.append(quote)
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
  public static func appendField<Out: ByteAppender & ~Copyable>(_ text: String?, to out: inout Out) {
    guard let text else { return }
    text.withUTF8Bytes { appendField($0, to: &out) }
  }

  /// Appends a device string without building it as a String first: its `<<HKDevice: 0x…`
  /// head and address never need quoting, its shared rest may (it holds commas).
  public static func appendField<Out: ByteAppender & ~Copyable>(_ device: DeviceString?, to out: inout Out) {
    guard let device else { return }
    device.rest.withUTF8Bytes { bytes in
      appendDevice(address: device.address, rest: bytes, quoted: needsQuotes(bytes), to: &out)
    }
  }

  /// Appends a device string from its parts; `quoted` tells whether `rest` needs quotes, and
  /// `restIsEscaped` whether its quotes are already doubled.
  @inline(__always)
  static func appendDevice<Out: ByteAppender & ~Copyable>(
    address: UInt64?, rest: UnsafeBufferPointer<UInt8>, quoted: Bool, restIsEscaped: Bool = false,
    to out: inout Out
  ) {
    let quoted = quoted || (address == nil && rest.isEmpty)
    if quoted { out.append(quote) }
    if let address {
      out.append("<<HKDevice: 0x")
      DeviceString.appendHex(address, to: &out)
    }
    if quoted && !restIsEscaped {
      appendDoublingQuotes(rest, to: &out)
    } else {
      out.append(bytes: rest)
    }
    if quoted { out.append(quote) }
  }

  /// Appends a byte-array field (the prolog), quoted if needed.
  public static func appendField<Out: ByteAppender & ~Copyable>(bytes: [UInt8], to out: inout Out) {
    bytes.withUnsafeBufferPointer { appendField($0, to: &out) }
  }

  /// Appends a decimal integer.
  @inline(__always)
  public static func appendInteger<Out: ByteAppender & ~Copyable>(_ value: Int, to out: inout Out) {
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

  /// Appends a header row (names never need quotes) and a newline.
  public static func appendHeader<Out: ByteAppender & ~Copyable>(_ columns: [String], to out: inout Out) {
    for (index, column) in columns.enumerated() {
      if index > 0 { out.append(comma) }
      column.withUTF8Bytes { out.append(bytes: $0) }
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

/// One CSV file of a `--split` folder: a byte buffer flushed in blocks.
///
/// Many record types mean many tables, so a table keeps its file descriptor open only while the
/// writer's open-file budget allows; past it, each flush opens the file for appending, writes
/// and closes it again. Flushes happen every ``blockSize`` bytes, so that costs a few system
/// calls per 64 KiB.
final class CSVTableFile {
  static let blockSize = 64 << 10

  let path: String
  var buffer = ByteBuffer(capacity: CSVTableFile.blockSize + 4096)
  private(set) var rows = 0
  private var fileDescriptor: Int32 = -1
  private var created = false
  /// The file in ``TemporaryFiles`` from its creation until ``forget()``.
  private var registration: TemporaryFiles.Registration?

  /// Whether rows have a `workout_id` column after `parent_id`.
  let hasWorkoutColumn: Bool

  init(path: String, header: [String], hasWorkoutColumn: Bool = false) {
    self.path = path
    self.hasWorkoutColumn = hasWorkoutColumn
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
      if !created, registration == nil { registration = TemporaryFiles.registerFile(path) }
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
    buffer.removeAll()
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

  /// Unregisters the file once its folder was renamed into place or removed.
  func forget() {
    TemporaryFiles.unregister(registration)
    registration = nil
  }

  static func error(_ path: String, _ what: String) -> HealthPortError {
    HealthPortError(.failure, "\(path): error: \(what): \(String(cString: strerror(errno)))")
  }
}

/// Appends dates as the export writes them (`YYYY-MM-DD HH:MM:SS ±HHMM`), the same bytes as
/// ``HealthDate/append(to:)`` but several times faster on the hot path: the bytes are stored a
/// word at a time straight into the output, and the calendar conversion and the offset's digits
/// are cached for the last local day and offset (samples come in runs of nearby dates), so that
/// a date of the same day costs a range check and the time of day's digits. Used by every writer
/// and by `load` for the dates it binds.
///
/// The single-table CSV writes two other forms with the same machinery (``Style``): ISO 8601 with
/// the written offset (`YYYY-MM-DDTHH:MM:SS±HH:MM`, also 25 bytes) and the instant in UTC
/// (`YYYY-MM-DDTHH:MM:SSZ`). The style only changes what the cold paths cache (the day's
/// separator, the offset's bytes), so the hot path is the same for all three.
public struct ExportDateFormatter {
  /// How dates are written.
  public enum Style: Sendable {
    /// `2016-08-05 10:00:00 +0100`, as the export writes it.
    case export
    /// `2016-08-05T10:00:00+01:00`: ISO 8601 in the written offset.
    case iso
    /// `2016-08-05T09:00:00Z`: ISO 8601, the instant in UTC.
    case utc
  }

  public let style: Style
  /// Bytes of the date without a trailer: 25, or 20 in UTC.
  private let length: Int
  /// Where a trailer goes in the offset word: after its six bytes, or after the `Z`.
  private let trailerShift: UInt64
  /// All ones, or zero in UTC (the offset is masked off without a branch).
  private let offsetMask: Int32
  /// Local seconds since 1970 at the start of the cached day.
  private var dayStart: Int64 = 0
  /// `YYYY-MM-` and `DD ` of the cached day.
  private var dayWord: UInt64 = 0
  private var dayTail: UInt32 = 0
  private var lastOffset: Int32 = 0
  /// ` ±HHMM` of `lastOffset`, in the low six bytes.
  private var offsetWord: UInt64 = 0

  public init(style: Style = .export) {
    self.style = style
    length = style == .utc ? 20 : 25
    trailerShift = style == .utc ? 8 : 48
    offsetMask = style == .utc ? 0 : -1
    // Start from a valid cache (1970-01-01, +0000), so that no test for "unset" is needed.
    _ = cacheDay(0)
    cacheOffset(0)
  }

  @inline(__always)
  mutating func append<Out: ByteAppender & ~Copyable>(_ date: HealthDate, to out: inout Out) {
    append(date, to: &out, trailer: nil)
  }

  /// Room ``write(_:to:)`` needs at its destination.
  public static let writeRoom = 32

  /// For other modules (`load` binds three dates a record straight from memory it owns): writes
  /// the date at `out`, which has room for ``writeRoom`` bytes, and returns its length (25), or
  /// nil if it would not fit (a year beyond four digits, never read from an export).
  public mutating func write(_ date: HealthDate, to out: UnsafeMutablePointer<UInt8>) -> Int? {
    var destination = FixedDestination(base: out, capacity: Self.writeRoom)
    append(date, to: &destination, trailer: nil)
    return destination.overflowed ? nil : destination.count
  }

  /// Fixed memory as a ``ByteAppender``: bytes past `capacity` are dropped and noted.
  private struct FixedDestination: ByteAppender {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0
    var overflowed = false

    mutating func append(_ byte: UInt8) {
      guard count < capacity else { return overflowed = true }
      base[count] = byte
      count += 1
    }

    mutating func append(bytes: UnsafeBufferPointer<UInt8>) {
      for byte in bytes { append(byte) }
    }

    mutating func appendUnsafe(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
      guard maxCount <= capacity - count else { return overflowed = true }
      count += body(base + count)
    }
  }

  /// Appends the date and then `trailer` (a closing quote, a comma) in the same store.
  @inline(__always)
  mutating func append<Out: ByteAppender & ~Copyable>(_ date: HealthDate, to out: inout Out, trailer: UInt8?) {
    // In UTC the offset is taken as zero: the cached offset word is `Z` whatever the date's.
    let offsetSeconds = date.offsetSeconds & offsetMask
    let local = date.secondsSince1970 &+ Int64(offsetSeconds)
    var secondOfDay = UInt64(bitPattern: local &- dayStart)
    if secondOfDay >= 86_400 {
      // Floor division: the local day, also before 1970.
      var day = local / 86_400
      if local < day &* 86_400 { day -= 1 }
      guard cacheDay(Int(day)) else {
        date.appendSlowly(to: &out, style: style)
        if let trailer { out.append(trailer) }
        return
      }
      secondOfDay = UInt64(bitPattern: local &- dayStart)
    }
    if offsetSeconds != lastOffset { cacheOffset(offsetSeconds) }
    // Unsigned arithmetic on a value known to be below 86,400: multiplications, no checks.
    let seconds = UInt32(truncatingIfNeeded: secondOfDay)
    let hour = seconds / 3600
    let minutesAndSeconds = seconds &- hour &* 3600
    let minute = minutesAndSeconds / 60
    let second = minutesAndSeconds &- minute &* 60
    @inline(__always) func digits(_ value: UInt32, _ shift: UInt64) -> UInt64 {
      let tens = (value &* 205) >> 11  // value / 10 for value < 1,000
      return (UInt64(0x30 &+ tens) | UInt64(0x30 &+ value &- tens &* 10) << 8) << shift
    }
    // `HH:MM:SS`
    let time = digits(hour, 0) | 0x3A << 16 | digits(minute, 24) | 0x3A << 40 | digits(second, 48)
    let dayWord = dayWord
    let dayTail = dayTail
    let offsetWord = offsetWord | UInt64(trailer ?? 0) << trailerShift
    let written = trailer == nil ? length : length + 1
    out.appendUnsafe(maxCount: 32) { pointer in
      let raw = UnsafeMutableRawPointer(pointer)
      raw.storeBytes(of: dayWord, toByteOffset: 0, as: UInt64.self)
      raw.storeBytes(of: dayTail, toByteOffset: 8, as: UInt32.self)
      raw.storeBytes(of: time, toByteOffset: 11, as: UInt64.self)
      // Eight bytes stored, six or seven of them kept: the buffer has room for the rest.
      raw.storeBytes(of: offsetWord, toByteOffset: 19, as: UInt64.self)
      return written
    }
  }

  @inline(__always)
  mutating func append<Out: ByteAppender & ~Copyable>(_ date: HealthDate?, to out: inout Out) {
    if let date { append(date, to: &out) }
  }

  /// Caches the bytes of `day`; false (and the cache unchanged) for years the four digits
  /// cannot hold.
  @inline(never)
  private mutating func cacheDay(_ day: Int) -> Bool {
    let (year, month, dayOfMonth) = HealthDate.civil(fromDays: day)
    guard (0...9999).contains(year) else { return false }
    @inline(__always) func byte(_ value: Int, _ index: UInt64) -> UInt64 { UInt64(value) << (8 * index) }
    dayWord =
      byte(48 + year / 1000, 0) | byte(48 + year / 100 % 10, 1) | byte(48 + year / 10 % 10, 2)
      | byte(48 + year % 10, 3) | byte(0x2D, 4) | byte(48 + month / 10, 5) | byte(48 + month % 10, 6)
      | byte(0x2D, 7)
    let separator: UInt32 = style == .export ? 0x20 : 0x54  // ` ` or `T`
    dayTail = UInt32(48 + dayOfMonth / 10) | UInt32(48 + dayOfMonth % 10) << 8 | separator << 16
    dayStart = Int64(day) * 86_400
    return true
  }

  @inline(never)
  private mutating func cacheOffset(_ offsetSeconds: Int32) {
    let offset = Int(offsetSeconds)
    let magnitude = abs(offset)
    let hours = magnitude / 3600 % 100
    let minutes = magnitude / 60 % 60
    let sign = UInt64(offset < 0 ? 0x2D : 0x2B)
    let (h1, h2) = (UInt64(48 + hours / 10), UInt64(48 + hours % 10))
    let (m1, m2) = (UInt64(48 + minutes / 10), UInt64(48 + minutes % 10))
    switch style {
    case .export: offsetWord = 0x20 | sign << 8 | h1 << 16 | h2 << 24 | m1 << 32 | m2 << 40  // ` ±HHMM`
    case .iso: offsetWord = sign | h1 << 8 | h2 << 16 | 0x3A << 24 | m1 << 32 | m2 << 40  // `±HH:MM`
    case .utc: offsetWord = 0x5A  // `Z`
    }
    lastOffset = offsetSeconds
  }
}

extension HealthDate {
  /// ``append(to:)`` for any byte appender (years beyond four digits: rare, not hot), in one of
  /// the formatter's styles.
  @inline(never)
  func appendSlowly<Out: ByteAppender & ~Copyable>(to out: inout Out, style: ExportDateFormatter.Style = .export) {
    var bytes: [UInt8] = []
    let date = style == .utc ? HealthDate(secondsSince1970: secondsSince1970, offsetSeconds: 0) : self
    date.append(to: &bytes)
    if style != .export, bytes.count >= 16 {
      // `…DD HH:MM:SS ±HHMM` → `…DDTHH:MM:SS±HH:MM` (or `Z`): the day's separator is the
      // ninth byte from the end of the time, the offset the last five bytes.
      let offset = Array(bytes.suffix(5))
      bytes.removeLast(6)
      bytes[bytes.count - 9] = 0x54
      if style == .utc { bytes.append(0x5A) } else { bytes += offset[0..<3] + [0x3A] + offset[3...] }
    }
    out.append(bytes: bytes)
  }
}
