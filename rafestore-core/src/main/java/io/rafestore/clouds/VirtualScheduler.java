package io.rafestore.clouds;

import io.rafestore.Scheduler;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A {@link Scheduler} on virtual time, for deterministic tests and simulations: time stands still
 * until a caller advances it, and timers run on the advancing thread in time order (ties in the
 * order they were scheduled).
 *
 * <p>Use it with a same-thread executor ({@code Runnable::run}) and clouds that complete
 * synchronously (the in-memory cloud and the decorators), so every callback runs inside {@link
 * #advance} or {@link #runUntilDone}; then a run with the paper's 1.2 s round trips takes
 * microseconds of real time and always gives the same result.
 *
 * <p>Thread-safe: tasks may be scheduled from any thread; only one thread should advance time.
 */
public final class VirtualScheduler implements Scheduler {

  /** A timer; {@code state} is 0 pending, 1 cancelled, 2 run (guarded by the scheduler). */
  private static final class Task {
    final long at;
    final long seq;
    final Runnable body;
    int state;

    Task(long at, long seq, Runnable body) {
      this.at = at;
      this.seq = seq;
      this.body = body;
    }
  }

  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(
          (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private long now;
  private long seq;
  private int live;

  /** A scheduler whose clock starts at zero. */
  public VirtualScheduler() {}

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  /** Virtual time elapsed since creation. */
  public Duration elapsed() {
    return Duration.ofNanos(nanoTime());
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    Task t;
    synchronized (this) {
      t = new Task(now + Math.max(0, delay.toNanos()), seq++, task);
      queue.add(t);
      live++;
    }
    // Cancelling marks the task; it is dropped when it reaches the head of the queue. Removing
    // it from the heap eagerly would cost a linear scan per cancellation.
    return () -> {
      synchronized (VirtualScheduler.this) {
        if (t.state != 0) {
          return false;
        }
        t.state = 1;
        live--;
        return true;
      }
    };
  }

  /** Number of timers neither run nor cancelled. */
  public synchronized int pending() {
    return live;
  }

  /** Pops cancelled tasks off the head; returns the first live one without removing it. */
  private Task peekLive() {
    Task t = queue.peek();
    while (t != null && t.state == 1) {
      queue.poll();
      t = queue.peek();
    }
    return t;
  }

  /** Runs the earliest pending timer, moving time to it; false if none is pending. */
  public boolean runNext() {
    Task t;
    synchronized (this) {
      t = peekLive();
      if (t == null) {
        return false;
      }
      queue.poll();
      t.state = 2;
      live--;
      now = Math.max(now, t.at);
    }
    t.body.run();
    return true;
  }

  /** Moves time forward by {@code delta}, running every timer that falls due on the way. */
  public void advance(Duration delta) {
    long target;
    synchronized (this) {
      target = now + delta.toNanos();
    }
    while (true) {
      Task t;
      synchronized (this) {
        t = peekLive();
        if (t == null || t.at > target) {
          now = Math.max(now, target);
          return;
        }
        queue.poll();
        t.state = 2;
        live--;
        now = Math.max(now, t.at);
      }
      t.body.run();
    }
  }

  /** Runs timers in order until none is left. */
  public void runUntilIdle() {
    while (runNext()) {
      // keep going
    }
  }

  /**
   * Runs timers in time order until {@code future} completes, and returns its value.
   *
   * @throws IllegalStateException if no timer is left and the future is still pending (the
   *     simulated system is stuck, e.g. waiting on a cloud that hangs forever)
   * @throws ExecutionException if the future failed
   */
  public <T> T runUntilDone(CompletableFuture<T> future) throws ExecutionException {
    while (!future.isDone()) {
      if (!runNext()) {
        throw new IllegalStateException(
            "virtual time stalled at " + elapsed() + ": no timer left and the future is not done");
      }
    }
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
