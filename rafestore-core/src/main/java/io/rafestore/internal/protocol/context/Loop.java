package io.rafestore.internal.protocol.context;

import io.rafestore.spi.support.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An asynchronous loop that does not grow the stack with the number of turns: a page walk over
 * 100,000 pages that a driver (or a test's in-memory cloud) completes synchronously runs in one
 * frame, not in 100,000 nested {@code thenCompose} callbacks.
 *
 * <p>It is a trampoline: a turn that completes before the loop looks at it is consumed in the same
 * {@code while} loop; a turn still pending gets a callback that re-enters the loop, and re-entry
 * while the loop is running only counts a pass ({@code wip}), so the running frame picks it up.
 *
 * <p>The loop stops (and cancels the turn in flight) as soon as its future completes, whoever
 * completes it: the last turn, a failure, the caller's cancellation or timeout ({@code Client}'s
 * bound completes it exceptionally), or {@link Context#close()} of the client. No turn starts after
 * that. Thread-safe: turns may complete on any thread.
 */
public final class Loop {
  private Loop() {}

  /**
   * Runs {@code turn} again and again until the future it returns yields {@code false} (the loop
   * completes normally) or fails (the loop fails with it). A turn is started only after the
   * previous one completed.
   */
  public static CompletableFuture<Void> repeat(
      Context ctx, Supplier<CompletableFuture<Boolean>> turn) {
    Runner r = new Runner(turn);
    ctx.track(r.done);
    Futures.onEnd(
        r.done,
        (x, e) -> {
          CompletableFuture<Boolean> c = r.current;
          if (c != null) {
            c.cancel(true);
          }
        });
    r.drive();
    return r.done;
  }

  /**
   * A future that completes as {@code inner} does and, when it completes first (cancelled, failed
   * by a timeout), cancels {@code inner}: how a caller's future stops the loop beneath it. {@link
   * Futures#relay} only passes on cancellation.
   */
  public static <T> CompletableFuture<T> tied(
      CompletableFuture<?> inner, CompletableFuture<T> outer) {
    Futures.onEnd(outer, (r, e) -> inner.cancel(true));
    return outer;
  }

  private static final class Runner {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final Supplier<CompletableFuture<Boolean>> turn;
    final AtomicInteger wip = new AtomicInteger();
    volatile CompletableFuture<Boolean> current;

    Runner(Supplier<CompletableFuture<Boolean>> turn) {
      this.turn = turn;
    }

    void drive() {
      if (wip.getAndIncrement() != 0) {
        return;
      }
      do {
        pass();
      } while (wip.decrementAndGet() != 0);
    }

    /** Consumes every turn that is already complete and starts the next; returns when waiting. */
    private void pass() {
      while (!done.isDone()) {
        CompletableFuture<Boolean> c = current;
        if (c == null) {
          try {
            c = turn.get();
          } catch (RuntimeException | Error e) {
            done.completeExceptionally(e);
            return;
          }
          current = c;
          // Completed already: the callback only counts a pass; this loop consumes it below.
          Futures.onEnd(c, (v, e) -> drive());
          if (done.isDone()) {
            c.cancel(true);
            return;
          }
        }
        if (!c.isDone()) {
          return;
        }
        current = null;
        boolean again;
        try {
          again = Boolean.TRUE.equals(c.join());
        } catch (RuntimeException e) {
          done.completeExceptionally(Futures.unwrap(e));
          return;
        }
        if (!again) {
          done.complete(null);
          return;
        }
      }
    }
  }
}
