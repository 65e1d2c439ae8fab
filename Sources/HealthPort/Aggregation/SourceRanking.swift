/// The source ranks of `steps --dedupe`, for other merges (`sleep`): `--priority` entries first
/// (products or source names, ignoring case, best first), then Watch, then iPhone, then every
/// other source name in the order it first appears. Lower is better; sources of equal rank count
/// as one.
package struct SourceRanking: Sendable {
  package let priority: [String]
  private var otherNames: [String: Int] = [:]

  package init(priority: [String]) { self.priority = priority.map { $0.lowercased() } }

  /// The rank of a source; call it in document order, since unlisted names rank by first call.
  package mutating func rank(name: String, product: String?) -> Int {
    let product = product?.lowercased()
    let lowered = name.lowercased()
    if let index = priority.firstIndex(where: { $0 == product || $0 == lowered }) { return index }
    if product == "watch" { return priority.count }
    if product == "iphone" { return priority.count + 1 }
    let next = otherNames.count
    let order = otherNames[name] ?? next
    if order == next { otherNames[name] = next }
    return priority.count + 2 + order
  }
}
