package io.rafestore.internal.observe;

import io.rafestore.OperationReceipt;
import io.rafestore.Phase;
import io.rafestore.PhaseTiming;
import io.rafestore.ReadReceipt;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.spi.support.Futures;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One operation of the client, from its call to its end, and the timings of its phases, on the
 * client's scheduler. The protocol marks a phase's {@link #begin} and {@link #end} (one call each,
 * from any thread); each phase is reported to the listener and to JFR when it ends, and the
 * operation's receipt takes {@link #phases()}. A begin of a phase already running is ignored, and
 * so is an end of a phase not running, so a hook may sit on a path that runs more than once; a
 * phase that runs again after it ended (a read that reads metadata again) is listed again. When the
 * operation ends ({@link #finish}, or {@link #observe} on its future), an {@link OperationReceipt}
 * goes to the listener and an {@code io.rafestore.Operation} event to JFR.
 *
 * <p>Thread-safe (every method synchronises on the trace; listeners are called outside the lock).
 */
public final class OpTrace {
  private final Observer observer;
  private final String key;
  private final OperationReceipt.Kind operation;
  private final long startNanos;
  // The kind's own event (Write, Read) if it has one, else null; and every operation's event.
  // Both null when JFR was not initialised at the start: the first event object a JVM creates
  // registers every event class with JFR, a cost a short command should not pay unrecorded.
  private final jdk.jfr.Event event;
  private final JfrEvents.Operation operationEvent;

  // Guarded by this.
  private final Map<Phase, Long> open = new EnumMap<>(Phase.class);
  private final Map<Phase, JfrEvents.Phase> openEvents = new EnumMap<>(Phase.class);
  private final List<PhaseTiming> done = new ArrayList<>();
  private boolean finished;
  private boolean committed;
  private long bytes;

  /** Whether phases are kept to this trace alone (a background task's), not reported. */
  private final boolean quiet;

  /** The tenant the operation is made for. */
  private final String tenant;

  OpTrace(
      Observer observer,
      String key,
      OperationReceipt.Kind operation,
      boolean quiet,
      String tenant) {
    this.quiet = quiet;
    this.tenant = tenant;
    this.observer = observer;
    this.key = key;
    this.operation = operation;
    this.startNanos = observer.nanoTime();
    boolean jfr = !quiet && Observer.jfrActive();
    this.event =
        !jfr
            ? null
            : switch (operation) {
              case WRITE -> JfrEvents.operation(true);
              case READ -> JfrEvents.operation(false);
              default -> null;
            };
    this.operationEvent = jfr ? new JfrEvents.Operation() : null;
    if (operationEvent != null) {
      operationEvent.begin();
    }
  }

  public String key() {
    return key;
  }

  public OperationReceipt.Kind operation() {
    return operation;
  }

  /** When the operation started, on the client's scheduler. */
  public long startNanos() {
    return startNanos;
  }

  /** Time since the operation started. */
  public Duration elapsed() {
    return Duration.ofNanos(observer.nanoTime() - startNanos);
  }

  /** {@code phase} starts now (ignored if it is running already). */
  public void begin(Phase phase) {
    long now = observer.nanoTime();
    synchronized (this) {
      if (finished || open.containsKey(phase)) {
        return;
      }
      open.put(phase, now);
      if (!quiet && Observer.jfrActive()) {
        JfrEvents.Phase e = new JfrEvents.Phase();
        if (e.isEnabled()) {
          e.begin();
          openEvents.put(phase, e);
        }
      }
    }
  }

  /** {@code phase} ends now (ignored if it is not running). */
  public void end(Phase phase) {
    long now = observer.nanoTime();
    PhaseTiming timing;
    JfrEvents.Phase e;
    synchronized (this) {
      Long began = open.remove(phase);
      if (began == null) {
        return;
      }
      timing = timing(phase, began, now);
      done.add(timing);
      e = openEvents.remove(phase);
    }
    report(timing, e);
  }

  /**
   * Times {@code f} as {@code phase}: begins it now, ends it when {@code f} completes. Returns a
   * future completed after the phase ended (so the next phase, chained on it, starts after it);
   * cancelling the returned future does not cancel {@code f}.
   */
  public <T> CompletableFuture<T> timed(Phase phase, CompletableFuture<T> f) {
    begin(phase);
    return f.whenComplete((r, e) -> end(phase));
  }

  /** The phases so far in start order; a phase still running is cut at now. */
  public List<PhaseTiming> phases() {
    long now = observer.nanoTime();
    List<PhaseTiming> out;
    synchronized (this) {
      out = new ArrayList<>(done);
      open.forEach((p, began) -> out.add(timing(p, began, now)));
    }
    out.sort(Comparator.comparing(PhaseTiming::start));
    return out;
  }

  /**
   * Ends the operation when {@code op} completes, with its outcome (and, for a value or bytes,
   * their size), and returns a future that completes with {@code op} after the listener was told: a
   * caller who sees the result has had the operation's events. A failure or cancellation of the
   * returned future (the operation timeout, the caller's cancellation) is passed on to {@code op},
   * so the operation's own handlers release what it holds, as if it had been completed directly;
   * the trace then ends with it (its events may reach the listener just after the caller saw the
   * failure).
   */
  public <T> CompletableFuture<T> observe(CompletableFuture<T> op) {
    return relay(op, true);
  }

  /**
   * Like {@link #observe}, but only a failure ends the operation; if {@code op} succeeds, the
   * operation goes on (a read stream: see {@link #stream}).
   */
  public <T> CompletableFuture<T> observeFailure(CompletableFuture<T> op) {
    return relay(op, false);
  }

  private <T> CompletableFuture<T> relay(CompletableFuture<T> op, boolean endOnSuccess) {
    CompletableFuture<T> out = new CompletableFuture<>();
    Futures.onEnd(
        op,
        (r, e) -> {
          Throwable cause = unwrap(e);
          if (r instanceof byte[] b) {
            bytes(b.length);
          } else if (r instanceof StoredValue v) {
            bytes(v.info().size());
          } else if (r instanceof WriteReceipt w) {
            bytes(w.info().size());
          }
          if (cause != null || endOnSuccess) {
            finish(cause);
          }
          if (cause == null) {
            out.complete(r);
          } else {
            out.completeExceptionally(cause);
          }
        });
    Futures.onEnd(
        out,
        (r, e) -> {
          if (e != null && !op.isDone()) {
            op.completeExceptionally(unwrap(e));
          }
        });
    return out;
  }

  private static Throwable unwrap(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof java.util.concurrent.CompletionException
            || cause instanceof java.util.concurrent.ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /**
   * {@code in}, timed as this operation's data fetch: the phase and the operation end when the
   * stream reaches its end (success), throws (failure) or is closed before its end (cancelled).
   */
  public InputStream stream(InputStream in) {
    begin(Phase.DATA_FETCH);
    return new Traced(in);
  }

  /** The value bytes the operation returned or wrote. */
  public synchronized void bytes(long n) {
    bytes = n;
  }

  /**
   * The operation ended: phases still running end now (and are reported); a failure is logged and
   * committed to JFR; the {@link OperationReceipt} goes to the listener. Call it on every outcome;
   * only the first call counts.
   */
  public void finish(Throwable error) {
    List<PhaseTiming> ended = new ArrayList<>();
    List<JfrEvents.Phase> events = new ArrayList<>();
    long now = observer.nanoTime();
    long size;
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
      size = bytes;
      for (Map.Entry<Phase, Long> o : open.entrySet()) {
        PhaseTiming t = timing(o.getKey(), o.getValue(), now);
        done.add(t);
        ended.add(t);
        events.add(openEvents.remove(o.getKey()));
      }
      open.clear();
    }
    for (int i = 0; i < ended.size(); i++) {
      report(ended.get(i), events.get(i));
    }
    Throwable cause = unwrap(error);
    String failure = cause == null ? "" : String.valueOf(cause);
    if (cause != null) {
      observer.operationFailed(this, cause);
      commit(null, 0, null, failure);
    }
    OperationReceipt receipt =
        new OperationReceipt(
            operation,
            key,
            Duration.ofNanos(Math.max(0, now - startNanos)),
            Observer.outcome(cause),
            size,
            phases(),
            failure,
            tenant);
    if (operationEvent != null) {
      operationEvent.end();
    }
    if (operationEvent != null && operationEvent.shouldCommit()) {
      operationEvent.operation = operation.name();
      operationEvent.key = key;
      operationEvent.bytes = size;
      operationEvent.outcome = receipt.outcome().name();
      operationEvent.failure = failure;
      operationEvent.commit();
    }
    observer.operationCompleted(receipt);
  }

  /**
   * Called by the observer when the operation completed with {@code receipt}. The version is
   * formatted only for a recorded JFR event: at thousands of operations a second, formatting it for
   * nothing was a measurable share of a write's CPU.
   */
  void succeeded(io.rafestore.Version version, long bytes, Object receipt) {
    bytes(bytes);
    commit(version, bytes, receipt, "");
  }

  private void commit(io.rafestore.Version version, long bytes, Object receipt, String failure) {
    synchronized (this) {
      if (committed) {
        return;
      }
      committed = true;
    }
    if (event == null) {
      return;
    }
    event.end();
    if (!event.shouldCommit()) {
      return;
    }
    if (event instanceof JfrEvents.Write w) {
      w.key = key;
      w.version = version == null ? null : version.toString();
      w.bytes = bytes;
      w.failure = failure;
      if (receipt instanceof WriteReceipt r) {
        w.clouds = String.join(",", r.dataCloudsContacted());
        w.writeDfUsed = r.writeDfUsed();
        w.layout = r.layoutChoice().map(c -> c.reason()).orElse("");
      }
    } else if (event instanceof JfrEvents.Read rd) {
      rd.key = key;
      rd.version = version == null ? null : version.toString();
      rd.bytes = bytes;
      rd.failure = failure;
      if (receipt instanceof ReadReceipt r) {
        rd.cloud = r.servedBy();
      }
    }
    event.commit();
  }

  private PhaseTiming timing(Phase phase, long began, long now) {
    return new PhaseTiming(
        phase,
        Duration.ofNanos(Math.max(0, began - startNanos)),
        Duration.ofNanos(Math.max(0, now - began)));
  }

  private void report(PhaseTiming timing, JfrEvents.Phase e) {
    if (e != null) {
      e.end();
      if (e.shouldCommit()) {
        e.key = key;
        e.operation = operation.name();
        e.phase = timing.phase().paperName();
        e.commit();
      }
    }
    if (!quiet) {
      observer.phase(key, timing);
    }
  }

  /** A read stream that ends its operation: at its end, at a failure, or when it is closed. */
  private final class Traced extends FilterInputStream {
    // Counted by the reading thread, read by close(), which may run on another.
    private final java.util.concurrent.atomic.AtomicLong read =
        new java.util.concurrent.atomic.AtomicLong();

    Traced(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b;
      try {
        b = super.read();
      } catch (IOException | RuntimeException e) {
        end(e);
        throw e;
      }
      if (b < 0) {
        atEnd();
      } else {
        read.incrementAndGet();
      }
      return b;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
      int n;
      try {
        n = super.read(buf, off, len);
      } catch (IOException | RuntimeException e) {
        end(e);
        throw e;
      }
      if (n < 0) {
        atEnd();
      } else {
        read.addAndGet(n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long s;
      try {
        s = super.skip(n);
      } catch (IOException | RuntimeException e) {
        end(e);
        throw e;
      }
      read.addAndGet(s);
      return s;
    }

    @Override
    public void close() throws IOException {
      end(
          new java.util.concurrent.CancellationException(
              "the stream was closed after " + read.get() + " bytes, before its end"));
      super.close();
    }

    private void atEnd() {
      end(null);
    }

    /** Ends the operation (the first call counts) with the bytes the caller has read so far. */
    private void end(Throwable error) {
      synchronized (OpTrace.this) {
        if (finished) {
          return;
        }
        bytes = read.get();
      }
      finish(error);
    }
  }
}
