import XMLStream

/// Hands an ``XMLPushParser``'s events to an ``ElementBuilder``.
///
/// The builder's generic `startElement` is specialised here for ``LibXML2Attributes`` (same
/// module, concrete type), so the XML path makes the same direct calls as a builder written for
/// libxml2 alone.
final class XMLElementFeed: XMLEventHandler {
  let builder: ElementBuilder

  init(_ builder: ElementBuilder) { self.builder = builder }

  @inline(__always)
  func startElement(_ name: XMLBytes, attributes: XMLAttributes) throws {
    try builder.startElement(ByteView(name.buffer), attributes: LibXML2Attributes(attributes))
  }

  @inline(__always)
  func endElement(_ name: XMLBytes) throws { try builder.endElement(ByteView(name.buffer)) }

  @inline(__always)
  func text(_ bytes: XMLBytes) throws { try builder.text(ByteView(bytes.buffer)) }

  func overlongBlanks(_ count: Int) throws { try builder.overlongBlanks(count) }
}

/// libxml2's attribute quintuples as ``ElementAttributes``: names are interned in the parser's
/// dictionary, so their pointers serve as identities.
struct LibXML2Attributes: ElementAttributes {
  let xml: XMLAttributes

  @inline(__always)
  init(_ xml: XMLAttributes) { self.xml = xml }

  @inline(__always) var count: Int { xml.count }
  @inline(__always) func name(at index: Int) -> ByteView { ByteView(xml.name(at: index).buffer) }
  @inline(__always) func nameIdentity(at index: Int) -> UnsafeRawPointer { xml.nameIdentity(at: index) }
  @inline(__always) func value(at index: Int) -> ByteView { ByteView(xml.value(at: index).buffer) }
}
