import Foundation
import Testing

@testable import HealthPortSQLite

/// The thread behind the WAL's checkpointer and the PostgreSQL stream.
@Suite("A thread that runs a round per request")
struct RequestedRoundsTests {
  /// Counts rounds; each round waits until the test lets it go.
  final class Gate: @unchecked Sendable {
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var count = 0
    var rounds: Int { lock.withLock { count } }

    func round() {
      lock.withLock { count += 1 }
      started.signal()
      release.wait()
    }
  }

  struct Refused: Error {}

  @Test("requests made during a round are merged into one more round; stop waits for the one in flight")
  func mergedRequests() {
    let gate = Gate()
    let rounds = RequestedRounds(name: "test-rounds") { gate.round() }
    rounds.request()
    gate.started.wait()
    for _ in 0..<5 { rounds.request() }
    gate.release.signal()
    gate.started.wait()
    #expect(gate.rounds == 2)
    // The second round is in flight: stop returns only after it.
    let stopped = DispatchSemaphore(value: 0)
    Thread {
      rounds.stop()
      stopped.signal()
    }.start()
    #expect(stopped.wait(timeout: .now() + 0.2) == .timedOut)
    gate.release.signal()
    stopped.wait()
    #expect(gate.rounds == 2)
    #expect(rounds.failure == nil)
  }

  @Test("the first error ends the thread: later requests run nothing, stop and failure return it")
  func firstErrorEnds() {
    let lock = NSLock()
    var calls = 0
    let ran = DispatchSemaphore(value: 0)
    let rounds = RequestedRounds(name: "test-rounds") {
      lock.withLock { calls += 1 }
      ran.signal()
      throw Refused()
    }
    #expect(rounds.failure == nil)
    rounds.request()
    ran.wait()
    // Until the thread has kept the error.
    var kept = false
    for _ in 0..<500 where !kept {
      kept = rounds.failure != nil
      if !kept { usleep(1_000) }
    }
    #expect(kept)
    rounds.request()
    usleep(50_000)
    #expect(rounds.stop() is Refused)
    #expect(rounds.failure is Refused)
    #expect(lock.withLock { calls } == 1)
  }
}
