extension OutputStream {
  /// Runs `body`, which writes the whole output, then commits it; on an error, aborts it (what
  /// was written is removed) and rethrows.
  package func committing(_ body: () throws -> Void) throws {
    do {
      try body()
      try commit()
    } catch {
      abort()
      throw error
    }
  }
}
