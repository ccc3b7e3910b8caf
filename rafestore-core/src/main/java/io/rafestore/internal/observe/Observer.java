package io.rafestore.internal.observe;

import io.rafestore.CloudFault;
import io.rafestore.CloudRequest;
import io.rafestore.IntegrityException;
import io.rafestore.KeyNotFoundException;
import io.rafestore.OperationReceipt;
import io.rafestore.PhaseTiming;
import io.rafestore.QuorumException;
import io.rafestore.RafeStoreException;
import io.rafestore.RafeStoreListener;
import io.rafestore.ReadReceipt;
import io.rafestore.Scheduler;
import io.rafestore.VersionNotFoundException;
import io.rafestore.WriteReceipt;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import jdk.jfr.FlightRecorder;

/**
 * Where the protocol reports what it does: each report goes to the {@link RafeStoreListener}, to
 * JFR (when a recording enables the event) and, for faults and failures, to the {@code
 * io.rafestore} {@link System.Logger} at {@code DEBUG} (faults are expected under the fault model;
 * they are the listener's and the metrics' business, not a log's).
 *
 * <p>A listener that throws is logged at {@code WARNING} the first time and at {@code DEBUG} after
 * that, and never changes an operation's outcome.
 *
 * <p>Thread-safe.
 */
public final class Observer {
  static final System.Logger LOG = System.getLogger("io.rafestore");

  private final RafeStoreListener listener;
  private final Scheduler scheduler;
  private final AtomicBoolean listenerFailed = new AtomicBoolean();

  public Observer(RafeStoreListener listener, Scheduler scheduler) {
    this.listener = Objects.requireNonNull(listener, "listener");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
  }

  /**
   * Whether JFR is initialised in this JVM, that is whether any recording can exist (one started
   * with {@code -XX:StartFlightRecording}, {@code jcmd JFR.start} or the {@code Recording} API).
   * The first event object a JVM creates registers every event class with JFR, whether or not
   * anything records (on JDK 17 about a hundred classes and a generated handler per event class: a
   * tenth to a third of a second of a short command's CPU), so no event object is created, and no
   * {@link JfrEvents} class loaded, before this is true. It is here, not in {@code JfrEvents},
   * because verifying that class loads the event classes. An operation already running when a
   * recording starts is not recorded; the next one is.
   */
  static boolean jfrActive() {
    return FlightRecorder.isInitialized();
  }

  /** The client's scheduler's clock, in nanoseconds. */
  public long nanoTime() {
    return scheduler.nanoTime();
  }

  /**
   * Starts timing an operation of {@code tenant} on {@code key} (empty for an operation on no one
   * key). Every operation names its tenant: there is no default to fall back on silently.
   */
  public OpTrace start(String key, OperationReceipt.Kind operation, String tenant) {
    return new OpTrace(this, key, operation, false, tenant);
  }

  /**
   * A trace for work the client does in the background on {@code key} (packing inline values): its
   * phases are timed for the work itself but reach neither the listener nor JFR, and it is never
   * finished as an operation; the work's requests and cloud faults are reported as usual.
   */
  public OpTrace quiet(String key) {
    return new OpTrace(
        this, key, OperationReceipt.Kind.WRITE, true, io.rafestore.CloudRequest.DEFAULT_TENANT);
  }

  /** A cloud failed or misbehaved during an operation on {@code key}. */
  public void fault(String key, CloudFault fault) {
    if (jfrActive()) {
      JfrEvents.Fault e = new JfrEvents.Fault();
      if (e.shouldCommit()) {
        e.key = key;
        e.cloud = fault.cloudId();
        e.kind = fault.kind().name();
        e.detail = fault.detail();
        e.commit();
      }
    }
    if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(
          Level.DEBUG,
          "cloud {0}: {1} on key ''{2}'': {3}",
          fault.cloudId(),
          fault.kind(),
          key,
          fault.detail());
    }
    tell(l -> l.cloudFault(key, fault));
  }

  /** A read ignored a writer's logs (or a certificate, a revocation list), and why. */
  public void writerRejected(String key, io.rafestore.WriterTrustException why) {
    if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(Level.DEBUG, "writer rejected" + (key == null ? "" : " for " + key) + ": " + why);
    }
    tell(l -> l.writerRejected(key, why));
  }

  /** A request to a cloud ended. */
  public void request(CloudRequest request) {
    if (jfrActive()) {
      JfrEvents.Request e = new JfrEvents.Request();
      if (e.shouldCommit()) {
        e.cloud = request.cloudId();
        e.kind = request.kind().name();
        e.bytes = request.bytes();
        e.outcome = request.outcome().name();
        e.schedulerNanos = request.duration().toNanos();
        e.commit();
      }
    }
    tell(l -> l.cloudRequest(request));
  }

  /** Something the read tier's cache dropped (a bad unit or file). */
  public void cache(io.rafestore.CacheEvent event) {
    if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(Level.DEBUG, "cache: {0}", event);
    }
    tell(l -> l.cacheEvent(event));
  }

  /** Something the background scrubber found or did. */
  public void scrub(io.rafestore.ScrubEvent event) {
    if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(Level.DEBUG, "scrub: {0}", event);
    }
    tell(l -> l.scrubEvent(event));
  }

  void phase(String key, PhaseTiming timing) {
    tell(l -> l.phaseCompleted(key, timing));
  }

  /** A write completed: its receipt goes to the listener, its event to JFR. */
  public void writeCompleted(OpTrace trace, WriteReceipt receipt) {
    trace.succeeded(receipt.version(), receipt.info().size(), receipt);
    tell(l -> l.writeCompleted(receipt));
  }

  /** A read completed. */
  public void readCompleted(OpTrace trace, ReadReceipt receipt) {
    trace.succeeded(receipt.version(), receipt.bytes(), receipt);
    tell(l -> l.readCompleted(receipt));
  }

  void operationCompleted(OperationReceipt receipt) {
    tell(l -> l.operationCompleted(receipt));
  }

  /** How an operation that failed with {@code cause} (null: it succeeded) ended. */
  static OperationReceipt.Outcome outcome(Throwable cause) {
    if (cause == null) {
      return OperationReceipt.Outcome.OK;
    }
    if (cause instanceof KeyNotFoundException || cause instanceof VersionNotFoundException) {
      return OperationReceipt.Outcome.NOT_FOUND;
    }
    if (cause instanceof IntegrityException) {
      return OperationReceipt.Outcome.INTEGRITY;
    }
    if (cause instanceof QuorumException) {
      return OperationReceipt.Outcome.UNAVAILABLE;
    }
    if (cause instanceof RafeStoreException
        && cause.getCause() instanceof java.util.concurrent.TimeoutException) {
      return OperationReceipt.Outcome.TIMEOUT;
    }
    if (cause instanceof java.util.concurrent.CancellationException) {
      return OperationReceipt.Outcome.CANCELLED;
    }
    return OperationReceipt.Outcome.FAILED;
  }

  void operationFailed(OpTrace trace, Throwable error) {
    if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(
          Level.DEBUG,
          "{0} of ''{1}'' failed after {2}: {3}",
          trace.operation().name().toLowerCase(java.util.Locale.ROOT),
          trace.key(),
          Duration.ofNanos(nanoTime() - trace.startNanos()),
          error.toString());
    }
  }

  private void tell(Consumer<RafeStoreListener> call) {
    if (listener == RafeStoreListener.NONE) {
      return;
    }
    try {
      call.accept(listener);
    } catch (RuntimeException e) {
      // A listener must not break the protocol; its failure is its own, but not a silent one.
      Level level = listenerFailed.compareAndSet(false, true) ? Level.WARNING : Level.DEBUG;
      LOG.log(level, "RafeStoreListener " + listener.getClass().getName() + " threw", e);
    }
  }
}
