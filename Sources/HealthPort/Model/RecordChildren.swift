#if canImport(Glibc)
  import Glibc
#endif

/// The children of a ``Record``, in document order: an array, except in a Record with more than
/// ``packingStart`` children, whose plain `MetadataEntry` children past that point are kept as
/// their keys' and values' UTF-8 bytes in one buffer (``PackedChildren``), 8 bytes of offsets
/// each, where an array holds 72 bytes per child. A Record of 1,000,000 entries took 110 MB;
/// the limit of one element's children is 1,000,000 (docs/errors.md, "Limits").
///
/// Read as any collection of ``Record/Child``: a packed entry is made again, equal to the one
/// appended, when it is read.
package struct RecordChildren: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
  package typealias Element = Record.Child
  package typealias Index = Int

  /// Children appended after this many are packed when they are plain metadata entries. Apple
  /// exports hold a few per Record: this never happens to them.
  package static let packingStart = 1024

  /// The first children (all of them, until more than ``packingStart``).
  private var items: [Record.Child]
  /// The children after ``packingStart``; nil until then.
  private var packed: PackedChildren?

  package init() { items = [] }
  package init(arrayLiteral elements: Record.Child...) { items = elements }
  package init<S: Sequence>(_ children: S) where S.Element == Record.Child {
    items = []
    for child in children { append(child) }
  }

  @inline(__always) package var startIndex: Int { 0 }
  @inline(__always) package var endIndex: Int { items.count &+ (packed?.count ?? 0) }
  @inline(__always) package var isEmpty: Bool { items.isEmpty }

  /// The children as an array, when none is packed (all but hostile Records): the writers'
  /// loops over it are the same as before.
  @inline(__always) package var unpacked: [Record.Child]? { packed == nil ? items : nil }

  package subscript(position: Int) -> Record.Child {
    if position < items.count { return items[position] }
    return packed!.child(at: position - items.count)
  }

  @inline(__always)
  package mutating func append(_ child: consuming Record.Child) {
    if packed == nil, items.count < Self.packingStart {
      items.append(child)
    } else {
      appendPacked(child)
    }
  }

  @inline(never)
  private mutating func appendPacked(_ child: consuming Record.Child) {
    if packed == nil {
      packed = PackedChildren()
    } else if !isKnownUniquelyReferenced(&packed!) {
      packed = packed!.copy()
    }
    packed!.append(child)
  }

  package mutating func removeAll(keepingCapacity: Bool = false) {
    items.removeAll(keepingCapacity: keepingCapacity)
    packed = nil
  }

  package static func == (lhs: RecordChildren, rhs: RecordChildren) -> Bool {
    if lhs.packed == nil, rhs.packed == nil { return lhs.items == rhs.items }
    return lhs.count == rhs.count && lhs.elementsEqual(rhs)
  }

  /// As an array of the same children hashes.
  package func hash(into hasher: inout Hasher) {
    if packed == nil { return hasher.combine(items) }
    hasher.combine(count)
    for child in self { hasher.combine(child) }
  }
}

/// Children of a Record past ``RecordChildren/packingStart``: plain metadata entries (without
/// extra attributes, children or text) as bytes, the others as they are with their places.
/// A class for its buffers, copied before a write when shared (``RecordChildren`` is a value).
final class PackedChildren: @unchecked Sendable {
  /// The keys and values, each entry's key then its value.
  private var bytes: UnsafeMutablePointer<UInt8>?
  private var byteCount = 0
  private var byteCapacity = 0
  /// Per entry: where its key ends and where its value ends in `bytes`.
  private var ends: UnsafeMutablePointer<UInt32>?
  private var entryCount = 0
  private var entryCapacity = 0
  /// The children that are not plain entries, and their places among the packed children.
  private var others: [Record.Child] = []
  private var otherPlaces: [Int] = []

  init() {}

  deinit {
    free(bytes)
    free(ends)
  }

  var count: Int { entryCount + others.count }

  func copy() -> PackedChildren {
    let copy = PackedChildren()
    copy.reserveBytes(byteCount)
    copy.reserveEntries(entryCount)
    if byteCount > 0 { copy.bytes!.update(from: bytes!, count: byteCount) }
    if entryCount > 0 { copy.ends!.update(from: ends!, count: 2 * entryCount) }
    copy.byteCount = byteCount
    copy.entryCount = entryCount
    copy.others = others
    copy.otherPlaces = otherPlaces
    return copy
  }

  func append(_ child: consuming Record.Child) {
    guard case .metadata(let entry) = child, entry.extraAttributes.isEmpty, entry.extraChildren.isEmpty,
      entry.text == nil
    else {
      otherPlaces.append(count)
      others.append(child)
      return
    }
    var key = entry.key
    var value = entry.value
    let keyCount = key.utf8.count
    let valueCount = value.utf8.count
    // The element cap (64 MiB) keeps the offsets within 32 bits.
    precondition(byteCount + keyCount + valueCount <= Int(UInt32.max), "packed metadata over 4 GiB")
    reserveBytes(byteCount + keyCount + valueCount)
    reserveEntries(entryCount + 1)
    key.withUTF8 { (bytes! + byteCount).update(from: $0.baseAddress!, count: $0.count) }
    byteCount += keyCount
    ends![2 * entryCount] = UInt32(byteCount)
    value.withUTF8 { (bytes! + byteCount).update(from: $0.baseAddress!, count: $0.count) }
    byteCount += valueCount
    ends![2 * entryCount + 1] = UInt32(byteCount)
    entryCount += 1
  }

  /// The child at `place` among the packed children.
  func child(at place: Int) -> Record.Child {
    var entry = place
    if !others.isEmpty {
      // The first other child at `place` or after it.
      var low = 0
      var high = otherPlaces.count
      while low < high {
        let middle = (low + high) / 2
        if otherPlaces[middle] < place { low = middle + 1 } else { high = middle }
      }
      if low < otherPlaces.count, otherPlaces[low] == place { return others[low] }
      entry = place - low
    }
    let start = entry == 0 ? 0 : Int(ends![2 * entry - 1])
    let keyEnd = Int(ends![2 * entry])
    let valueEnd = Int(ends![2 * entry + 1])
    let key = String(decoding: UnsafeBufferPointer(start: bytes! + start, count: keyEnd - start), as: UTF8.self)
    let value = String(decoding: UnsafeBufferPointer(start: bytes! + keyEnd, count: valueEnd - keyEnd), as: UTF8.self)
    return .metadata(MetadataEntry(key: key, value: value))
  }

  /// Grows by a half (realloc: a large buffer is moved by remapping, never copied whole).
  private func reserveBytes(_ needed: Int) {
    guard needed > byteCapacity else { return }
    let capacity = max(needed, byteCapacity + byteCapacity / 2, 4096)
    guard let grown = realloc(bytes, capacity) else { fatalError("out of memory") }
    bytes = grown.assumingMemoryBound(to: UInt8.self)
    byteCapacity = capacity
  }

  private func reserveEntries(_ needed: Int) {
    guard needed > entryCapacity else { return }
    let capacity = max(needed, entryCapacity + entryCapacity / 2, 512)
    guard let grown = realloc(ends, 2 * capacity * MemoryLayout<UInt32>.stride) else { fatalError("out of memory") }
    ends = grown.assumingMemoryBound(to: UInt32.self)
    entryCapacity = capacity
  }
}
