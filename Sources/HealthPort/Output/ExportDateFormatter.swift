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
package struct ExportDateFormatter {
  /// How dates are written.
  package enum Style: Sendable {
    /// `2016-08-05 10:00:00 +0100`, as the export writes it.
    case export
    /// `2016-08-05T10:00:00+01:00`: ISO 8601 in the written offset.
    case iso
    /// `2016-08-05T09:00:00Z`: ISO 8601, the instant in UTC.
    case utc
  }

  package let style: Style
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

  package init(style: Style = .export) {
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
  package static let writeRoom = 32

  /// For other modules (`load` binds three dates a record straight from memory it owns): writes
  /// the date at `out`, which has room for ``writeRoom`` bytes, and returns its length (25), or
  /// nil if it would not fit (a year beyond four digits, never read from an export).
  package mutating func write(_ date: HealthDate, to out: UnsafeMutablePointer<UInt8>) -> Int? {
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
