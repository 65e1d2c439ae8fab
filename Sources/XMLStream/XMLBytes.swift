import CLibXML2

#if canImport(Glibc)
  import Glibc
#endif

/// A borrowed run of UTF-8 bytes inside libxml2's buffers; valid only during a callback.
public struct XMLBytes {
  public let buffer: UnsafeBufferPointer<UInt8>

  @inlinable
  public init(start: UnsafePointer<UInt8>, count: Int) {
    buffer = UnsafeBufferPointer(start: start, count: count)
  }

  @inlinable
  init(cString: UnsafePointer<UInt8>) {
    self.init(start: cString, count: strlen(UnsafeRawPointer(cString).assumingMemoryBound(to: CChar.self)))
  }

  @inlinable public var count: Int { buffer.count }

  /// A new String with these bytes (invalid UTF-8 is repaired, which libxml2 already prevents).
  @inlinable
  public var string: String { String(decoding: buffer, as: UTF8.self) }
}

/// The attributes of a start tag, as libxml2's `(localname, prefix, URI, valueBegin, valueEnd)`
/// quintuples. Values are not NUL-terminated: they are read from their begin/end pair.
public struct XMLAttributes {
  @usableFromInline let raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
  public let count: Int

  init(raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int) {
    self.raw = raw
    self.count = raw == nil ? 0 : count
  }

  /// The local name of attribute `index`.
  @inlinable
  public func name(at index: Int) -> XMLBytes {
    XMLBytes(cString: raw![index * 5]!)
  }

  /// The identity of attribute `index`'s name: libxml2 keeps names in a dictionary, so equal
  /// names have equal pointers for the life of a parser. Lets callers cache name lookups.
  @inlinable
  public func nameIdentity(at index: Int) -> UnsafeRawPointer {
    UnsafeRawPointer(raw![index * 5]!)
  }

  /// The value of attribute `index`, with entities and character references decoded.
  @inlinable
  public func value(at index: Int) -> XMLBytes {
    let begin = raw![index * 5 + 3]!
    let end = raw![index * 5 + 4]!
    return XMLBytes(start: begin, count: end - begin)
  }
}
