/// A date as Apple Health exports write it: `YYYY-MM-DD HH:MM:SS ±HHMM`.
///
/// Keeps the instant and the UTC offset that was written, so that ``description`` gives back the
/// identical string. Parsing and formatting are hand-written (no DateFormatter) because every
/// Record carries three of them. Equality and ordering compare the instant and then the offset.
public struct HealthDate: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Seconds since 1970-01-01 00:00:00 UTC.
  public var secondsSince1970: Int64
  /// The written offset from UTC, in seconds (`+0100` is 3600).
  public var offsetSeconds: Int32

  /// The instant `secondsSince1970`, written with the UTC offset `offsetSeconds`.
  public init(secondsSince1970: Int64, offsetSeconds: Int32) {
    self.secondsSince1970 = secondsSince1970
    self.offsetSeconds = offsetSeconds
  }

  /// Parses `YYYY-MM-DD HH:MM:SS ±HHMM` exactly; nil for anything else.
  public init?(_ text: String) {
    var text = text
    guard let date = text.withUTF8({ HealthDate(utf8: UnsafeRawBufferPointer($0)) }) else { return nil }
    self = date
  }

  /// Parses the 25 bytes of `YYYY-MM-DD HH:MM:SS ±HHMM`; nil when the shape or a field range is wrong.
  @inlinable
  package init?(utf8 bytes: UnsafeRawBufferPointer) {
    guard bytes.count == 25, bytes[4] == 0x2D, bytes[7] == 0x2D else { return nil }
    let century = Self.twoDigits(bytes, 0)
    let yearLow = Self.twoDigits(bytes, 2)
    let month = Self.twoDigits(bytes, 5)
    let day = Self.twoDigits(bytes, 8)
    guard century < 100, yearLow < 100, month >= 1, month <= 12, day >= 1 else { return nil }
    let year = century * 100 + yearLow
    guard day <= Self.daysInMonth(year, month) else { return nil }
    self.init(utf8: bytes, daysSince1970: Self.daysSince1970(year: year, month: month, day: day))
  }

  /// Two decimal digits at `index`, or 100 when they are not digits.
  @inlinable @inline(__always)
  static func twoDigits(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Int {
    let high = bytes[index] &- 48
    let low = bytes[index + 1] &- 48
    return high < 10 && low < 10 ? Int(high) * 10 + Int(low) : 100
  }

  /// Parses the time and offset of a date whose `YYYY-MM-DD` is known to be valid and to fall
  /// on `days` (days since 1970-01-01); nil when the rest is malformed.
  @inlinable
  package init?(utf8 bytes: UnsafeRawBufferPointer, daysSince1970 days: Int) {
    guard bytes.count == 25 else { return nil }
    let hour = Self.twoDigits(bytes, 11)
    let minute = Self.twoDigits(bytes, 14)
    let second = Self.twoDigits(bytes, 17)
    let offsetHours = Self.twoDigits(bytes, 21)
    let offsetMinutes = Self.twoDigits(bytes, 23)
    let sign = bytes[20]
    guard bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A, bytes[19] == 0x20, sign == 0x2B || sign == 0x2D,
      hour < 24, minute < 60, second < 60, offsetHours < 24, offsetMinutes < 60
    else { return nil }
    let offset = (sign == 0x2D ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
    let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    self.init(secondsSince1970: local - Int64(offset), offsetSeconds: Int32(offset))
  }

  /// The local calendar day in the written offset, as days since 1970-01-01.
  package var localDayNumber: Int { Self.floorDiv(secondsSince1970 + Int64(offsetSeconds), 86_400) }

  /// The local day in another fixed offset.
  package func dayNumber(inOffset offset: Int) -> Int { Self.floorDiv(secondsSince1970 + Int64(offset), 86_400) }

  /// The string exactly as the export writes it.
  public var description: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(25)
    append(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `YYYY-MM-DD HH:MM:SS ±HHMM` to a byte buffer.
  package func append(to bytes: inout [UInt8]) {
    let local = secondsSince1970 + Int64(offsetSeconds)
    let days = Self.floorDiv(local, 86_400)
    let secondOfDay = Int(local - Int64(days) * 86_400)
    let (year, month, day) = Self.civil(fromDays: days)
    @inline(__always) func two(_ value: Int) {
      bytes.append(UInt8(48 + value / 10))
      bytes.append(UInt8(48 + value % 10))
    }
    two(year / 100 % 100)
    two(year % 100)
    bytes.append(0x2D)
    two(month)
    bytes.append(0x2D)
    two(day)
    bytes.append(0x20)
    two(secondOfDay / 3600)
    bytes.append(0x3A)
    two(secondOfDay / 60 % 60)
    bytes.append(0x3A)
    two(secondOfDay % 60)
    bytes.append(0x20)
    let offset = Int(offsetSeconds)
    bytes.append(offset < 0 ? 0x2D : 0x2B)
    two(abs(offset) / 3600)
    two(abs(offset) / 60 % 60)
  }

  /// Orders by instant, then by offset.
  public static func < (lhs: HealthDate, rhs: HealthDate) -> Bool {
    (lhs.secondsSince1970, lhs.offsetSeconds) < (rhs.secondsSince1970, rhs.offsetSeconds)
  }

  // MARK: Calendar arithmetic (proleptic Gregorian; Howard Hinnant's days_from_civil)

  @inlinable
  package static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  package static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  @inlinable
  package static func daysInMonth(_ year: Int, _ month: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  @inlinable
  static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int {
    Int(value >= 0 ? value / divisor : (value - divisor + 1) / divisor)
  }
}
