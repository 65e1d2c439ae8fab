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
  public static func substitute(in bytes: UnsafeMutableRawBufferPointer) -> Int {
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
    return count
  }

  /// Turns every marker in `bytes` back into its reference: the bytes as written again (they held
  /// no DEL of their own).
  public static func restore(in bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress else { return }
    let end = base + bytes.count
    var cursor = base
    while cursor < end, let found = memchr(cursor, Int32(delete), end - cursor) {
      let at = found.assumingMemoryBound(to: UInt8.self)
      guard end - UnsafeMutableRawPointer(at) >= 4, at[3] == delete else {
        cursor = UnsafeMutableRawPointer(at + 1)
        continue
      }
      at[0] = 0x26
      at[3] = 0x3B
      cursor = UnsafeMutableRawPointer(at + 4)
    }
  }

  /// The character a marker at `bytes[0...3]` stands for, or nil when there is none there.
  @inline(__always)
  static func character(at bytes: UnsafePointer<UInt8>, available: Int) -> UInt8? {
    guard available >= 4, bytes[0] == delete, bytes[2] == 0x74, bytes[3] == delete else { return nil }
    switch bytes[1] {
    case 0x6C: return 0x3C  // l: <
    case 0x67: return 0x3E  // g: >
    default: return nil
    }
  }
}
