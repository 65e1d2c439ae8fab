/// The smallest and largest value seen, in the order parquet.thrift's `ColumnOrder` gives each physical type:
/// false before true, signed integers, doubles ignoring NaN, byte arrays unsigned lexicographic.
struct ValueBounds {
  private(set) var isEmpty = true
  /// BOOLEAN (0 or 1), INT32 and INT64.
  private var minInteger: Int64 = 0
  private var maxInteger: Int64 = 0
  private var minDouble: Double = 0
  private var maxDouble: Double = 0
  private var minBytes: [UInt8] = []
  private var maxBytes: [UInt8] = []

  @inline(__always)
  mutating func include(_ value: Int64) {
    Self.widen(&minInteger, &maxInteger, to: value, first: isEmpty)
    isEmpty = false
  }

  @inline(__always)
  mutating func include(_ value: Double) {
    guard !value.isNaN else { return }
    Self.widen(&minDouble, &maxDouble, to: value, first: isEmpty)
    isEmpty = false
  }

  /// Moves `low` or `high` out to `value`; the first value sets both.
  @inline(__always)
  private static func widen<Value: Comparable>(_ low: inout Value, _ high: inout Value, to value: Value, first: Bool) {
    if first {
      low = value
      high = value
    } else if value < low {
      low = value
    } else if value > high {
      high = value
    }
  }

  mutating func include(_ value: UnsafeRawBufferPointer) {
    if isEmpty {
      minBytes.append(contentsOf: value)
      maxBytes.append(contentsOf: value)
      isEmpty = false
      return
    }
    if Self.compare(value, minBytes) < 0 {
      minBytes.removeAll(keepingCapacity: true)
      minBytes.append(contentsOf: value)
    } else if Self.compare(value, maxBytes) > 0 {
      maxBytes.removeAll(keepingCapacity: true)
      maxBytes.append(contentsOf: value)
    }
  }

  /// Widens these bounds to cover `other`'s (a finished page's, into its chunk's).
  mutating func include(_ other: ValueBounds, as type: ParquetPhysicalType) {
    guard !other.isEmpty else { return }
    switch type {
    case .boolean, .int32, .int64:
      include(other.minInteger)
      include(other.maxInteger)
    case .double:
      include(other.minDouble)
      include(other.maxDouble)
    case .byteArray:
      other.minBytes.withUnsafeBytes { include($0) }
      other.maxBytes.withUnsafeBytes { include($0) }
    }
  }

  mutating func removeAll() {
    isEmpty = true
    minBytes.removeAll(keepingCapacity: true)
    maxBytes.removeAll(keepingCapacity: true)
  }

  /// The bounds PLAIN-encoded as `Statistics.min_value`/`max_value`; nil when no value was ordered (only
  /// nulls, or only NaN). A zero minimum is written as -0.0 and a zero maximum as +0.0, as the specification
  /// asks, since either zero may be present.
  func encoded(as type: ParquetPhysicalType) -> (min: [UInt8], max: [UInt8])? {
    guard !isEmpty else { return nil }
    switch type {
    case .boolean: return ([UInt8(minInteger)], [UInt8(maxInteger)])
    case .int32: return (littleEndian(Int32(minInteger)), littleEndian(Int32(maxInteger)))
    case .int64: return (littleEndian(minInteger), littleEndian(maxInteger))
    case .double:
      let low = minDouble == 0 ? -0.0 : minDouble
      let high = maxDouble == 0 ? 0.0 : maxDouble
      return (littleEndian(low.bitPattern), littleEndian(high.bitPattern))
    case .byteArray: return (minBytes, maxBytes)
    }
  }

  private func littleEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
  }

  /// Unsigned lexicographic order; a prefix sorts first.
  static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: [UInt8]) -> Int {
    rhs.withUnsafeBytes { rhs in
      let common = Swift.min(lhs.count, rhs.count)
      if common > 0, let left = lhs.baseAddress, let right = rhs.baseAddress {
        let order = memcmp(left, right, common)
        if order != 0 { return Int(order) }
      }
      return lhs.count - rhs.count
    }
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
