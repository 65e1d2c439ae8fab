/// Builds the generic node of an element as the writers would write it: its attributes in the
/// Health app's order (dates, device strings and numbers as written), its text and its children.
/// For a typed element that a table cannot hold (a Record with text), which `--split` then writes
/// to `elements` and `attributes` like any unknown element.
struct NodeEmitter: ElementEmitter {
  /// The open elements, outermost first.
  private var open: [ElementNode] = []
  /// The last element closed at the top: the result.
  private(set) var node: ElementNode?

  /// The node of the element that `emit` writes.
  static func node(_ emit: (inout NodeEmitter) -> Void) -> ElementNode {
    var emitter = NodeEmitter()
    emit(&emitter)
    return emitter.node ?? ElementNode(name: "?")
  }

  mutating func begin(_ name: Name) { open.append(ElementNode(name: name.string)) }

  mutating func attribute(_ name: Name, _ value: String) {
    open[open.count - 1].attributes.append(Attribute(name.string, value))
  }

  mutating func attribute(_ name: Name, _ date: HealthDate) { attribute(name, date.description) }

  mutating func attribute(_ name: Name, _ device: DeviceString) { attribute(name, device.description) }

  mutating func numericAttribute(_ name: Name, _ value: String) { attribute(name, value) }

  mutating func endEmpty() { close() }

  mutating func beginContent(text: String?) { open[open.count - 1].text = text }

  mutating func endContent(_ name: Name) { close() }

  private mutating func close() {
    let done = open.removeLast()
    if open.isEmpty {
      node = done
    } else {
      open[open.count - 1].children.append(done)
    }
  }
}

extension Name {
  /// The name as a String.
  var string: String {
    switch storage {
    case .literal(let literal): literal.description
    case .string(let string): string
    }
  }
}
