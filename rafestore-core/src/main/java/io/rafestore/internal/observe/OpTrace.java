package io.rafestore.internal.observe;

import io.rafestore.Phase;
import io.rafestore.PhaseTiming;
import io.rafestore.ReadReceipt;
import io.rafestore.WriteReceipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The timings of one operation's phases, on the client's scheduler. The protocol marks a phase's
 * {@link #begin} and {@link #end} (one call each, from any thread); each phase is reported to the
 * listener and to JFR when it ends, and the operation's receipt takes {@link #phases()}. A begin of
 * a phase already running is ignored, and so is an end of a phase not running, so a hook may sit on
 * a path that runs more than once; a phase that runs again after it ended (a read that reads
 * metadata again) is listed again.
 *
 * <p>Thread-safe (every method synchronises on the trace; listeners are called outside the lock).
 */
public final class OpTrace {
  /** What kind of operation is traced. */
  public enum Operation {
    READ,
    WRITE
  }

  private final Observer observer;
  private final String key;
  private final Operation operation;
  private final long startNanos;
  private final jdk.jfr.Event event; // null when JFR was not initialised at the start

  // Guarded by this.
  private final Map<Phase, Long> open = new EnumMap<>(Phase.class);
  private final Map<Phase, JfrEvents.Phase> openEvents = new EnumMap<>(Phase.class);
  private final List<PhaseTiming> done = new ArrayList<>();
  private boolean finished;
  private boolean committed;

  OpTrace(Observer observer, String key, Operation operation) {
    this.observer = observer;
    this.key = key;
    this.operation = operation;
    this.startNanos = observer.nanoTime();
    this.event = Observer.jfrActive() ? JfrEvents.operation(operation == Operation.WRITE) : null;
  }

  public String key() {
    return key;
  }

  public Operation operation() {
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
      if (Observer.jfrActive()) {
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
   * The operation ended: phases still running end now (and are reported); a failure is logged and
   * committed to JFR. Call it on every outcome; only the first call counts.
   */
  public void finish(Throwable error) {
    List<PhaseTiming> ended = new ArrayList<>();
    List<JfrEvents.Phase> events = new ArrayList<>();
    long now = observer.nanoTime();
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
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
    if (error != null) {
      Throwable cause = error;
      while (cause instanceof java.util.concurrent.CompletionException
          && cause.getCause() != null) {
        cause = cause.getCause();
      }
      observer.operationFailed(this, cause);
      commit(null, 0, null, String.valueOf(cause));
    }
  }

  /** Called by the observer when the operation completed with {@code receipt}. */
  void succeeded(String version, long bytes, Object receipt) {
    commit(version, bytes, receipt, "");
  }

  private void commit(String version, long bytes, Object receipt, String failure) {
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
      w.version = version;
      w.bytes = bytes;
      w.failure = failure;
      if (receipt instanceof WriteReceipt r) {
        w.clouds = String.join(",", r.dataCloudsContacted());
        w.writeDfUsed = r.writeDfUsed();
      }
    } else if (event instanceof JfrEvents.Read rd) {
      rd.key = key;
      rd.version = version;
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
    observer.phase(key, timing);
  }
}
