/// Values numbered in order of first appearance (0, 1, 2, …), with the values by number: the
/// groups a collapse keeps apart, the source names a summary counts by.
struct FirstSeenIDs<Value: Hashable, ID: FixedWidthInteger> {
  private var ids: [Value: ID] = [:]
  /// The values, each at its id.
  private(set) var values: [Value] = []

  init() {}

  /// The id `value` got when first seen, else the next one.
  mutating func id(of value: Value) -> ID {
    if let found = ids[value] { return found }
    let id = ID(values.count)
    ids[value] = id
    values.append(value)
    return id
  }
}
