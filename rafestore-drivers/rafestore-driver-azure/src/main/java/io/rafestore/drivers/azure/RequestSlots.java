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
 * requests hold no thread.
 *
 * <p>The queue is bounded too ({@code maxWaiting}): a cloud slower than the requests sent to it
 * (the protocol completes at a quorum and does not wait for it, but keeps sending it metadata)
 * would otherwise make the queue, and the requests' bodies, grow without limit. A request that
 * finds the queue full of requests still wanted is refused at once, as an unavailable cloud would
 * refuse it; waiters whose caller gave up are dropped first. Thread-safe.
 */
final class RequestSlots {
  private final int max;
  private final int maxWaiting;
  private final ArrayDeque<Waiter> waiting = new ArrayDeque<>(); // guarded by this
  private int inUse; // guarded by this

  private record Waiter(BooleanSupplier start, BooleanSupplier abandoned) {}

  RequestSlots(int max, int maxWaiting) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, was " + max);
    }
    if (maxWaiting < 0) {
      throw new IllegalArgumentException("maxWaiting must be >= 0, was " + maxWaiting);
    }
    this.max = max;
    this.maxWaiting = maxWaiting;
  }

  /**
   * Starts {@code start} now if a slot is free, else when one is. {@code start} returns true if it
   * started a request (which then holds the slot until {@link #release()}), false if it had nothing
   * left to do (cancelled while waiting): its slot passes on at once.
   *
   * @param abandoned whether the caller no longer wants the request (then it may be dropped)
   * @return false if the request was refused: every slot busy and {@code maxWaiting} requests still
   *     wanted already waiting; {@code start} is then never run
   */
  boolean run(BooleanSupplier start, BooleanSupplier abandoned) {
    synchronized (this) {
      if (inUse >= max) {
        if (waiting.size() >= maxWaiting) {
          waiting.removeIf(w -> w.abandoned().getAsBoolean());
          if (waiting.size() >= maxWaiting) {
            return false;
          }
        }
        waiting.add(new Waiter(start, abandoned));
        return true;
      }
      inUse++;
    }
    if (!start.getAsBoolean()) {
      release();
    }
    return true;
  }

  /** Frees a slot: hands it to the next waiting request, or returns it. */
  void release() {
    while (true) {
      Waiter next;
      synchronized (this) {
        next = waiting.poll();
        if (next == null) {
          inUse--;
          return;
        }
      }
      // The slot passes to next without being returned; a loop, not recursion, so a long run of
      // cancelled waiters cannot overflow the stack.
      if (next.start().getAsBoolean()) {
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
