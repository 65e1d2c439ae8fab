/// Whether two numbers agree to a relative tolerance (default 1e-9): the tolerance of every
/// comparison of an exact output (CSV, JSON, a SQLite view) with a value computed apart, whose sums
/// may have been added in another order.
public func relativelyClose(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool {
  a == b || Swift.abs(a - b) <= tolerance * Swift.max(Swift.abs(a), Swift.abs(b))
}
