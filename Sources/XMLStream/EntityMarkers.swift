#if canImport(Glibc)
  import Glibc
#endif

/// `&lt;` and `&gt;` swapped for markers of the same length before libxml2 parses a range, and
/// swapped back in the attribute values it hands on (issue 16).
///
/// Every Record of an Apple export has a `device="&lt;&lt;HKDevice: 0x…&gt;, name:…&gt;"`, and a
/// value with a reference in it sends libxml2 down its slow path, which decodes the whole value a
/// character at a time: half of a bare SAX loop's instructions on a generated export. A value
/// of plain ASCII without `&` takes its fast path instead. So each `&lt;` becomes `DEL l t DEL`
/// and each `&gt;` `DEL g t DEL` (DEL, 0x7F, is an XML character libxml2's fast path accepts),
/// and ``EventDispatcher`` turns each marker back into `<` or `>`, which is what libxml2 would
/// have decoded the reference to. Same lengths keep every line and column.
///
/// Only a range with no DEL of its own is changed, so that every DEL in it is a marker. A marker
/// anywhere but in an attribute value (text, a comment, CDATA, where the reference means
/// something else or nothing) is never turned back: the reader counts the markers turned back,
/// and a range where they are fewer than were made, or that fails to parse, is parsed again as
/// written. Results and errors therefore stay exactly those of the bytes as written.
public enum EntityMarkers {
  static let delete: UInt8 = 0x7F

  /// Swaps the references in `bytes` for markers; returns how many, or 0 when the bytes hold a
  /// DEL of their own (then nothing is changed).
  ///
  /// `apostrophes`: also each `’` (U+2019, the apostrophe of nearly every source name, "Anna’s
  /// Apple Watch", whose value it sends down the same slow path), as `DEL q DEL`. Its three bytes
  /// are one column to libxml2 and the marker three: only for a read that never reports where an
  /// element was (a sink that shares its work out, ``RangeWorkSharing``), and whose errors come
  /// from parsing the bytes as written again.
  public static func substitute(in bytes: UnsafeMutableRawBufferPointer, apostrophes: Bool = false) -> Int {
    guard let base = bytes.baseAddress, bytes.count >= 4 else { return 0 }
    if memchr(base, Int32(delete), bytes.count) != nil { return 0 }
    let end = base + bytes.count
    var cursor = base
    var count = 0
    while cursor < end, let found = memchr(cursor, 0x26, end - cursor) {
      let at = found.assumingMemoryBound(to: UInt8.self)
      cursor = UnsafeMutableRawPointer(at + 1)
      guard end - UnsafeMutableRawPointer(at) >= 4, at[2] == 0x74, at[3] == 0x3B, at[1] == 0x6C || at[1] == 0x67
      else { continue }
      at[0] = delete
      at[3] = delete
      count += 1
      cursor = UnsafeMutableRawPointer(at + 4)
    }
    guard apostrophes else { return count }
    cursor = base
    while cursor < end, let found = memchr(cursor, 0xE2, end - cursor) {
      let at = found.assumingMemoryBound(to: UInt8.self)
      cursor = UnsafeMutableRawPointer(at + 1)
      guard end - UnsafeMutableRawPointer(at) >= 3, at[1] == 0x80, at[2] == 0x99 else { continue }
      at[0] = delete
      at[1] = 0x71  // q
      at[2] = delete
      count += 1
      cursor = UnsafeMutableRawPointer(at + 3)
    }
    return count
  }

  /// Turns every marker in `bytes` back into what it stood for: the bytes as written again (they
  /// held no DEL of their own).
  public static func restore(in bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress else { return }
    let end = base + bytes.count
    var cursor = base
    while cursor < end, let found = memchr(cursor, Int32(delete), end - cursor) {
      let at = found.assumingMemoryBound(to: UInt8.self)
      let available = end - UnsafeMutableRawPointer(at)
      if available >= 3, at[1] == 0x71, at[2] == delete {
        at[0] = 0xE2
        at[1] = 0x80
        at[2] = 0x99
        cursor = UnsafeMutableRawPointer(at + 3)
      } else if available >= 4, at[3] == delete {
        at[0] = 0x26
        at[3] = 0x3B
        cursor = UnsafeMutableRawPointer(at + 4)
      } else {
        cursor = UnsafeMutableRawPointer(at + 1)
      }
    }
  }

  /// The marker at `bytes`, if one starts there: its length, and the bytes it stands for in a
  /// value (`<`, `>`, or the three of `’`), as a count and up to three bytes.
  @inline(__always)
  static func marker(at bytes: UnsafePointer<UInt8>, available: Int) -> (
    length: Int, count: Int, value: (UInt8, UInt8, UInt8)
  )? {
    guard available >= 3, bytes[0] == delete else { return nil }
    if bytes[1] == 0x71, bytes[2] == delete { return (3, 3, (0xE2, 0x80, 0x99)) }
    guard available >= 4, bytes[2] == 0x74, bytes[3] == delete else { return nil }
    switch bytes[1] {
    case 0x6C: return (4, 1, (0x3C, 0, 0))  // l: <
    case 0x67: return (4, 1, (0x3E, 0, 0))  // g: >
    default: return nil
    }
  }
}
