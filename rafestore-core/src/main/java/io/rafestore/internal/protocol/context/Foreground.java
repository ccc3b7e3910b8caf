package io.rafestore.internal.protocol.context;

import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The client's foreground operations in flight (reads, writes, every call of the API), so that
 * background work (the scrubber) can give way to them. Counts only: it never delays a foreground
 * operation. Thread-safe.
 */
public final class Foreground {
  private int running;
  private final List<CompletableFuture<Void>> waiting = new ArrayList<>();

  /** Counts {@code op} as running until it completes. */
  public void track(CompletableFuture<?> op) {
    synchronized (this) {
      running++;
    }
    Futures.onEnd(op, (r, e) -> ended());
  }

  private void ended() {
    List<CompletableFuture<Void>> wake;
    synchronized (this) {
      if (--running > 0 || waiting.isEmpty()) {
        return;
      }
      wake = new ArrayList<>(waiting);
      waiting.clear();
    }
    wake.forEach(w -> w.complete(null));
  }

  /** Whether a foreground operation is running. */
  public synchronized boolean busy() {
    return running > 0;
  }

  /** Completes when no foreground operation is running (at once if none is). */
  public CompletableFuture<Void> idle() {
    synchronized (this) {
      if (running > 0) {
        CompletableFuture<Void> w = new CompletableFuture<>();
        waiting.add(w);
        return w;
      }
    }
    return CompletableFuture.completedFuture(null);
  }
}
