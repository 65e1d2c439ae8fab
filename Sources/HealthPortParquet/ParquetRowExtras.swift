import HealthPort

/// A row's `extra` column: what its element holds beyond the table's columns, as JSON
/// (`{"attributes":[[name,value],…],"children":[{"id":…,"element":…,"attributes":[…],"text":…,"children":[…]}]}`,
/// empty members left out), so that the dataset holds everything `--split` does.
enum ParquetRowExtras {
  /// With `identifiers`, every attribute is filtered as a generic element's (``IdentifierFilter/value(of:)``).
  static func json(_ extras: TableRowExtras, identifiers: IdentifierFilter? = nil) -> String {
    var out: [UInt8] = [UInt8(ascii: "{")]
    var first = true
    let filter = identifiers.map { filter in
      { (attributes: [Attribute]) in
        attributes.compactMap { attribute in filter.value(of: attribute).map { Attribute(attribute.name, $0) } }
      }
    }
    if !extras.attributes.isEmpty {
      member("attributes", first: &first, to: &out)
      append(filter?(extras.attributes) ?? extras.attributes, to: &out)
    }
    if !extras.children.isEmpty {
      member("children", first: &first, to: &out)
      out.append(UInt8(ascii: "["))
      for (index, child) in extras.children.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        append(child.node, id: child.id, filter: filter, to: &out)
      }
      out.append(UInt8(ascii: "]"))
    }
    out.append(UInt8(ascii: "}"))
    return String(decoding: out, as: UTF8.self)
  }

  /// `node` numbered `id`, its descendants numbered on in document order.
  private static func append(
    _ node: ElementNode, id: Int, filter: (([Attribute]) -> [Attribute])?, to out: inout [UInt8]
  ) {
    out.append(contentsOf: #"{"id":"#.utf8)
    out.append(contentsOf: String(id).utf8)
    out.append(contentsOf: #","element":"#.utf8)
    JSONEscaping.appendString(node.name, to: &out)
    var first = false
    if !node.attributes.isEmpty {
      member("attributes", first: &first, to: &out)
      append(filter?(node.attributes) ?? node.attributes, to: &out)
    }
    if let text = node.text {
      member("text", first: &first, to: &out)
      JSONEscaping.appendString(text, to: &out)
    }
    if !node.children.isEmpty {
      member("children", first: &first, to: &out)
      out.append(UInt8(ascii: "["))
      var next = id + 1
      for (index, child) in node.children.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        append(child, id: next, filter: filter, to: &out)
        next += TableRowRouter.count(child)
      }
      out.append(UInt8(ascii: "]"))
    }
    out.append(UInt8(ascii: "}"))
  }

  private static func member(_ name: String, first: inout Bool, to out: inout [UInt8]) {
    if !first { out.append(UInt8(ascii: ",")) }
    first = false
    JSONEscaping.appendString(name, to: &out)
    out.append(UInt8(ascii: ":"))
  }

  private static func append(_ attributes: [Attribute], to out: inout [UInt8]) {
    CSVMetadataJSON.appendPairs(attributes.map { ($0.name, $0.value) }, to: &out)
  }
}
