import Foundation

/// A thread of its own that runs one round of work each time it is asked: what a load hands off
/// after each batch's commit, so that the loading thread never waits for it (the WAL's
/// ``Checkpointer``, the PostgreSQL store's stream of new rows).
///
/// Requests made during a round are merged into the next one. The first error a round throws
/// ends the thread (later requests are dropped) and is kept for ``failure``; ``stop()`` waits
/// for the round in flight and drops one requested but not begun.
package final class RequestedRounds: @unchecked Sendable {
  private let condition = NSCondition()
  // Guarded by `condition`.
  private var requested = false
  private var stopping = false
  private var stopped = false
  private var firstFailure: Error?
  /// Released when the thread ends, so that a round holding its owner makes no cycle.
  private var round: (() throws -> Void)?

  /// Starts a thread named `name` that runs `round` on each request.
  package init(name: String, round: @escaping () throws -> Void) {
    self.round = round
    let thread = Thread { [self] in work() }
    thread.name = name
    thread.start()
  }

  /// Asks for a round (returns at once).
  package func request() {
    condition.lock()
    requested = true
    condition.signal()
    condition.unlock()
  }

  /// The error that ended the thread, if a round threw one.
  package var failure: Error? {
    condition.lock()
    defer { condition.unlock() }
    return firstFailure
  }

  /// Waits for the round in flight, then ends the thread; returns the error that ended it, if
  /// any. What the rounds wrote is visible to the caller once this returns.
  @discardableResult
  package func stop() -> Error? {
    condition.lock()
    defer { condition.unlock() }
    stopping = true
    condition.signal()
    while !stopped { condition.wait() }
    return firstFailure
  }

  private func work() {
    condition.lock()
    while let round {
      while !requested, !stopping { condition.wait() }
      if stopping { break }
      requested = false
      condition.unlock()
      var failed: Error?
      do { try round() } catch { failed = error }
      condition.lock()
      if let failed {
        firstFailure = failed
        break
      }
    }
    self.round = nil
    stopped = true
    condition.broadcast()
    condition.unlock()
  }
}
