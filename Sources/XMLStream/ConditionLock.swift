#if canImport(Glibc)
  import Glibc
#endif

/// A pthread mutex with one condition variable, for the hand-offs between threads (the event
/// pipeline's semaphores, the parallel reader's range board, the side-file pool). Waiting and
/// signalling need the lock held.
package final class ConditionLock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  package init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  @inline(__always)
  package func lock() { pthread_mutex_lock(mutex) }

  @inline(__always)
  package func unlock() { pthread_mutex_unlock(mutex) }

  /// Releases the lock until signalled, then holds it again.
  @inline(__always)
  package func wait() { pthread_cond_wait(condition, mutex) }

  /// Wakes one waiting thread.
  @inline(__always)
  package func signal() { pthread_cond_signal(condition) }

  /// Wakes every waiting thread.
  @inline(__always)
  package func broadcast() { pthread_cond_broadcast(condition) }
}
