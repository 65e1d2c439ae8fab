/// Finds the closest name for "did you mean" hints (Levenshtein distance, case-insensitive).
package enum NameSuggestion {
  package static func closest(to input: String, in candidates: [String], maxDistance: Int? = nil) -> String? {
    let limit = maxDistance ?? max(2, input.count / 3)
    var best: (String, Int)?
    for candidate in candidates {
      let distance = Self.distance(input.lowercased(), candidate.lowercased())
      if distance <= limit, best == nil || distance < best!.1 { best = (candidate, distance) }
    }
    return best?.0
  }

  package static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8)
    let b = Array(b.utf8)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = previous
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
