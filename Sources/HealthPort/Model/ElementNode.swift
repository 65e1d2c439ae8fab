/// One attribute, in the order it was read.
package struct Attribute: Hashable, Sendable {
  package var name: String
  package var value: String
  package init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// A generic element: used for the element kinds whose attributes vary between export versions
/// (`Me`, `ActivitySummary`, `ClinicalRecord`, `Audiogram`, `VisionPrescription`, `Location`, …)
/// and for elements healthport does not know, so that nothing in the input is lost.
public struct ElementNode: Hashable, Sendable {
  /// The element's name, as written.
  public var name: String
  package var attributes: [Attribute]
  /// The child elements, in document order.
  public var children: [ElementNode]
  /// Character data that is not white space (Apple exports have none).
  public var text: String?

  package init(name: String, attributes: [Attribute] = [], children: [ElementNode] = [], text: String? = nil) {
    self.name = name
    self.attributes = attributes
    self.children = children
    self.text = text
  }

  /// The value of the first attribute with this name.
  public subscript(attribute name: String) -> String? {
    attributes.first { $0.name == name }?.value
  }

  /// Counts this element and all below it.
  package var elementCount: Int { children.reduce(1) { $0 + $1.elementCount } }
}
