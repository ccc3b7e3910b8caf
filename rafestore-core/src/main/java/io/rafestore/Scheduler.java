package io.rafestore;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Time and timers, injected so that tests and simulations can run on virtual time and nothing in
 * RafeStore sleeps in a loop. The client, the decorators and the latency model take their notion of
 * "now" and all their delays from one of these.
 *
 * <p>Implementations are thread-safe.
 */
public interface Scheduler {

  /** Monotonic time in nanoseconds, only meaningful as a difference between two readings. */
  long nanoTime();

  /**
   * Runs {@code task} once after {@code delay}. The task must be short; it runs on a timer thread
   * (or on the thread that advances virtual time).
   *
   * @return a handle that cancels the task if it has not started
   */
  Cancellable schedule(Duration delay, Runnable task);

  /** Handle returned by {@link #schedule}. */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task; returns false if it already ran or was cancelled. */
    boolean cancel();
  }

  /**
   * The system scheduler: {@link System#nanoTime()} and one shared daemon timer thread. Timer tasks
   * must hand longer work to an executor.
   */
  static Scheduler system() {
    return SystemScheduler.INSTANCE;
  }

  /** Wraps a caller-owned scheduled executor; the caller shuts it down. */
  static Scheduler of(ScheduledExecutorService executor) {
    return new SystemScheduler(executor);
  }

  /** The {@link #system()} implementation. */
  final class SystemScheduler implements Scheduler {
    static final SystemScheduler INSTANCE = new SystemScheduler(defaultTimer());

    private final ScheduledExecutorService timer;

    SystemScheduler(ScheduledExecutorService timer) {
      this.timer = timer;
    }

    private static ScheduledExecutorService defaultTimer() {
      AtomicInteger n = new AtomicInteger();
      ThreadFactory factory =
          r -> {
            Thread t = new Thread(r, "rafestore-timer-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
          };
      java.util.concurrent.ScheduledThreadPoolExecutor executor =
          new java.util.concurrent.ScheduledThreadPoolExecutor(1, factory);
      executor.setRemoveOnCancelPolicy(true);
      return Executors.unconfigurableScheduledExecutorService(executor);
    }

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
      ScheduledFuture<?> f =
          timer.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    }
  }
}
