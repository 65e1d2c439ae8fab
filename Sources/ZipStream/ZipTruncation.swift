#if canImport(Glibc)
  import Glibc
#endif

/// Where a zip archive ends before its members do: the member it ends inside (nil when it ends
/// between members or inside its central directory), how many members before it are whole, and
/// how many the archive has when its central directory says so.
public struct ZipTruncation: Sendable, Equatable {
  /// The member the file ends inside.
  public var member: String?
  /// The members before it, all whole.
  public var wholeMembers: Int
  /// Every member, from the end-of-central-directory record; nil when it is missing (a file cut
  /// short loses it) or for a stream.
  public var totalMembers: Int?
  /// The member's bytes inflated before the end.
  public var bytesRead: Int64 = 0
  /// The member's size as the zip declares it, when it does.
  public var declaredSize: Int64?
  /// No member is cut: the file ends in its central directory (or where it should begin), so
  /// every member is whole.
  public var inDirectory = false

  /// Nothing of the members is lost: only the central directory is cut off.
  public var membersAllWhole: Bool { member == nil && inDirectory }

  /// `the file ends inside member 'M' (read X of Y bytes)`: the verdict for the member being read.
  public var readMessage: String {
    guard let member else { return "the file ends \(place)" }
    let size = declaredSize.map { " of \(Self.grouped($0))" } ?? ""
    return "the file ends inside member '\(member)' (read \(Self.grouped(bytesRead))\(size) bytes)"
  }

  /// `it ends inside member 'M' (N of M members whole)`: the verdict for the archive as a whole.
  public var archiveMessage: String {
    let count = Self.grouped(Int64(wholeMembers))
    if membersAllWhole {
      return "its central directory is cut off (\(wholeMembers == 1 ? "its one member" : "all \(count) members") whole)"
    }
    guard member != nil else {
      return "it ends after \(wholeMembers == 1 ? "its first member" : "its first \(count) members") (all whole), "
        + "inside the next member's header or the central directory"
    }
    return "it ends \(place) (\(wholeCount))"
  }

  private var place: String { member.map { "inside member '\($0)'" } ?? "after its members" }

  private var wholeCount: String {
    let whole = Self.grouped(Int64(wholeMembers))
    if let totalMembers { return "\(whole) of \(Self.grouped(Int64(totalMembers))) members whole" }
    let members = wholeMembers == 1 ? "member" : "members"
    return "\(whole) \(members) whole before it; the central directory that lists them all is cut off"
  }

  /// `1,391,730`.
  static func grouped(_ value: Int64) -> String {
    let digits = Array(String(value.magnitude))
    var text = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
      text.append(digit)
    }
    return value < 0 ? "-" + text : text
  }
}

/// What the bytes of a zip file say about its completeness, read before libarchive opens it:
/// its end-of-central-directory record (Zip64 too) and the central directory it points to, or,
/// when the record is missing (a file cut short), its local headers from the start.
struct ZipLayout {
  /// True when the file ends before its members, or lacks its end-of-central-directory record.
  var truncated = false
  /// The place it ends, when the layout tells it (nil when a member's size is only in a data
  /// descriptor, which the stream must then reach).
  var cut: ZipTruncation?
  /// Members in the central directory, when there is one.
  var totalMembers: Int?
  /// The names, as stored, of the members libarchive does not give as stored, by their position
  /// in the file (libarchive's order): a name with a backslash and no slash, which libarchive takes
  /// for a Windows path and turns its backslashes into slashes (`C:\evil\win.txt` read as
  /// `C:/evil/win.txt`), and a name holding a NUL, which libarchive's C string cuts short there.
  var storedNames: [Int: String] = [:]

  /// True for a name libarchive rewrites as a Windows path: a backslash and no slash.
  static func readAsWindowsPath(_ name: String) -> Bool {
    name.utf8.contains(UInt8(ascii: "\\")) && !name.utf8.contains(UInt8(ascii: "/"))
  }

  /// True for a name libarchive does not give as stored: one it reads as a Windows path, or one
  /// holding a NUL.
  static func readOtherwise(_ name: String) -> Bool {
    readAsWindowsPath(name) || name.utf8.contains(0)
  }

  /// The name libarchive gives for `stored`: cut at its first NUL, then read as a Windows path
  /// when it is one.
  static func asLibarchiveReads(_ stored: String) -> String {
    let cut = stored.utf8.firstIndex(of: 0).map { String(stored[..<$0]) } ?? stored
    return readAsWindowsPath(cut) ? cut.replacing("\\", with: "/") : cut
  }

  /// Reads the layout of the zip file open as `descriptor`, `size` bytes long.
  static func scan(descriptor: Int32, size: Int64) -> ZipLayout {
    let reader = Bytes(descriptor: descriptor, size: size)
    if let end = reader.endRecord() { return reader.checkCentralDirectory(end) }
    return reader.walkLocalHeaders()
  }

  /// Reads little-endian fields at offsets of the file.
  private struct Bytes {
    let descriptor: Int32
    let size: Int64

    func read(_ offset: Int64, _ count: Int) -> [UInt8]? {
      guard offset >= 0, count >= 0, offset + Int64(count) <= size else { return nil }
      var bytes = [UInt8](repeating: 0, count: count)
      var filled = 0
      while filled < count {
        let n = bytes.withUnsafeMutableBytes {
          pread(descriptor, $0.baseAddress! + filled, count - filled, off_t(offset + Int64(filled)))
        }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return nil }
        filled += n
      }
      return bytes
    }

    /// The end-of-central-directory record: members, directory offset and size (Zip64 read
    /// through its locator).
    func endRecord() -> (members: Int, offset: Int64, size: Int64, at: Int64)? {
      let tailLength = Int(min(size, 65_557))
      guard tailLength >= 22, let tail = read(size - Int64(tailLength), tailLength) else { return nil }
      var index = tailLength - 22
      while index >= 0 {
        if tail[index] == 0x50, tail[index + 1] == 0x4B, tail[index + 2] == 5, tail[index + 3] == 6,
          index + 22 + Int(le(tail, index + 20, 2)) == tailLength
        {
          break
        }
        index -= 1
      }
      guard index >= 0 else { return nil }
      let at = size - Int64(tailLength - index)
      var members = Int(le(tail, index + 10, 2))
      var directorySize = Int64(le(tail, index + 12, 4))
      var directoryOffset = Int64(le(tail, index + 16, 4))
      if members == 0xFFFF || directoryOffset == 0xFFFF_FFFF || directorySize == 0xFFFF_FFFF,
        let locator = read(at - 20, 20), signature(locator, 0, 6, 7),
        let record = read(Int64(le(locator, 8, 8)), 56), signature(record, 0, 6, 6)
      {
        members = Int(le(record, 32, 8))
        directorySize = Int64(le(record, 40, 8))
        directoryOffset = Int64(le(record, 48, 8))
      }
      return (members, directoryOffset, directorySize, at)
    }

    /// Every member's data must end before the next member (by offset) begins, the last before
    /// the central directory: a file with bytes missing from its middle fails this.
    func checkCentralDirectory(_ end: (members: Int, offset: Int64, size: Int64, at: Int64)) -> ZipLayout {
      var layout = ZipLayout(totalMembers: end.members)
      guard end.size >= 0, end.size < Int64(Int32.max), let directory = read(end.offset, Int(end.size)) else {
        return layout
      }
      var entries: [(name: String, local: Int64, dataEnd: Int64, size: Int64)] = []
      var position = 0
      while position + 46 <= directory.count, signature(directory, position, 1, 2) {
        var compressed = Int64(le(directory, position + 20, 4))
        var uncompressed = Int64(le(directory, position + 24, 4))
        let nameLength = Int(le(directory, position + 28, 2))
        let extraLength = Int(le(directory, position + 30, 2))
        let commentLength = Int(le(directory, position + 32, 2))
        var local = Int64(le(directory, position + 42, 4))
        let nameEnd = min(directory.count, position + 46 + nameLength)
        let name = String(decoding: directory[(position + 46)..<nameEnd], as: UTF8.self)
        zip64(directory, from: nameEnd, length: extraLength, &uncompressed, &compressed, &local)
        // The least the member takes (its local header repeats the name; its extra field may
        // differ): no read per member, so that a zip of many routes is checked at once.
        entries.append((name, local, local + 30 + Int64(nameLength) + compressed, uncompressed))
        position = nameEnd + extraLength + commentLength
      }
      entries.sort { $0.local < $1.local }
      for (index, entry) in entries.enumerated() where ZipLayout.readOtherwise(entry.name) {
        layout.storedNames[index] = entry.name
      }
      for (index, entry) in entries.enumerated() {
        let bound = index + 1 < entries.count ? entries[index + 1].local : end.offset
        guard entry.dataEnd > bound else { continue }
        layout.truncated = true
        layout.cut = ZipTruncation(
          member: entry.name, wholeMembers: index, totalMembers: end.members, declaredSize: entry.size)
        return layout
      }
      return layout
    }

    /// No end record: the file is cut short. Its local headers, from the start, tell where, as
    /// long as they carry their sizes.
    func walkLocalHeaders() -> ZipLayout {
      var layout = ZipLayout(truncated: true)
      var offset: Int64 = 0
      var whole = 0
      while let header = read(offset, 30), signature(header, 0, 3, 4) {
        let flags = le(header, 6, 2)
        var compressed = Int64(le(header, 18, 4))
        var uncompressed = Int64(le(header, 22, 4))
        let nameLength = Int(le(header, 26, 2))
        let extraLength = Int(le(header, 28, 2))
        guard let rest = read(offset + 30, nameLength + extraLength) else {
          layout.cut = ZipTruncation(member: nil, wholeMembers: whole)
          return layout
        }
        let name = String(decoding: rest[0..<nameLength], as: UTF8.self)
        if ZipLayout.readOtherwise(name) { layout.storedNames[whole] = name }
        var ignored: Int64 = 0
        zip64(rest, from: nameLength, length: extraLength, &uncompressed, &compressed, &ignored)
        // Sizes only in a data descriptor: the stream has to reach the end to tell.
        if flags & 8 != 0, compressed == 0 { return layout }
        let dataEnd = offset + 30 + Int64(nameLength + extraLength) + compressed
        if dataEnd > size {
          layout.cut = ZipTruncation(member: name, wholeMembers: whole, declaredSize: uncompressed)
          return layout
        }
        offset = dataEnd
        if flags & 8 != 0, let descriptor = read(offset, 4) {
          offset += (signature(descriptor, 0, 7, 8) ? 4 : 0) + 12
        }
        whole += 1
      }
      // After the last whole member: the central directory (or nothing of it), or a member's
      // header cut short.
      let rest = read(offset, Int(max(0, min(4, size - offset)))) ?? []
      // Nothing left, or a central directory header (or the end records) begun; one or two bytes
      // could be either.
      let inDirectory =
        rest.isEmpty || rest.count >= 3 && rest[0] == 0x50 && rest[1] == 0x4B && [1, 5, 6].contains(rest[2])
      layout.cut = ZipTruncation(member: nil, wholeMembers: whole, inDirectory: inDirectory)
      return layout
    }

    /// Reads a Zip64 extra field's sizes and offset where the 32-bit fields say so.
    private func zip64(
      _ bytes: [UInt8], from start: Int, length: Int, _ uncompressed: inout Int64, _ compressed: inout Int64,
      _ offset: inout Int64
    ) {
      var position = start
      let end = min(bytes.count, start + length)
      while position + 4 <= end {
        let id = le(bytes, position, 2)
        let fieldLength = Int(le(bytes, position + 2, 2))
        if id == 1 {
          var field = position + 4
          for value in [0, 1, 2] where field + 8 <= min(end, position + 4 + fieldLength) {
            switch value {
            case 0 where uncompressed == 0xFFFF_FFFF: uncompressed = Int64(le(bytes, field, 8))
            case 1 where compressed == 0xFFFF_FFFF: compressed = Int64(le(bytes, field, 8))
            case 2 where offset == 0xFFFF_FFFF: offset = Int64(le(bytes, field, 8))
            default: continue
            }
            field += 8
          }
          return
        }
        position += 4 + fieldLength
      }
    }

    private func signature(_ bytes: [UInt8], _ at: Int, _ third: UInt8, _ fourth: UInt8) -> Bool {
      at + 4 <= bytes.count && bytes[at] == 0x50 && bytes[at + 1] == 0x4B && bytes[at + 2] == third
        && bytes[at + 3] == fourth
    }

    private func le(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
      var value: UInt64 = 0
      for index in (0..<count).reversed() where at + index < bytes.count {
        value = value << 8 | UInt64(bytes[at + index])
      }
      return value
    }
  }
}
