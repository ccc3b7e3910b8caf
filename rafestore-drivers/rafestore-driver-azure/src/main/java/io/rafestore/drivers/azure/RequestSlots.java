package io.rafestore.drivers.azure;

import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * At most {@code max} requests in flight, the rest started in arrival order as slots free up.
 *
 * <p>Why: the JDK {@code HttpClient} has no connection limit of its own; it opens a connection for
 * every request that finds none idle. Bounding the requests in flight bounds the connections.
 * Invariant: {@code inUse <= max}, and a request counts from the moment it is started until its
 * {@link #release()}, which the caller calls exactly once per start that returned true. Waiting
 * requests hold no thread. Thread-safe.
 */
final class RequestSlots {
  private final int max;
  private final ArrayDeque<BooleanSupplier> waiting = new ArrayDeque<>(); // guarded by this
  private int inUse; // guarded by this

  RequestSlots(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, was " + max);
    }
    this.max = max;
  }

  /**
   * Starts {@code start} now if a slot is free, else when one is. {@code start} returns true if it
   * started a request (which then holds the slot until {@link #release()}), false if it had nothing
   * left to do (cancelled while waiting): its slot passes on at once.
   */
  void run(BooleanSupplier start) {
    synchronized (this) {
      if (inUse >= max) {
        waiting.add(start);
        return;
      }
      inUse++;
    }
    if (!start.getAsBoolean()) {
      release();
    }
  }

  /** Frees a slot: hands it to the next waiting request, or returns it. */
  void release() {
    while (true) {
      BooleanSupplier next;
      synchronized (this) {
        next = waiting.poll();
        if (next == null) {
          inUse--;
          return;
        }
      }
      // The slot passes to next without being returned; a loop, not recursion, so a long run of
      // cancelled waiters cannot overflow the stack.
      if (next.getAsBoolean()) {
        return;
      }
    }
  }

  /** Requests in flight now (for tests). */
  synchronized int inUse() {
    return inUse;
  }

  /** Requests waiting for a slot now (for tests). */
  synchronized int waiting() {
    return waiting.size();
  }
}
