package io.rafestore;

/**
 * Observes a client's operations: completed writes and reads with the timings of their phases,
 * faults seen on clouds, and every request made to a cloud. Every method has an empty default, so
 * implement only what you need (and listeners written for earlier versions keep compiling). The
 * {@code rafestore-micrometer} module turns these events into meters.
 *
 * <p><b>Threads.</b> Methods are called on the thread that observed the event (a driver's thread,
 * the client's executor or the caller's), possibly concurrently: implementations must be
 * thread-safe, fast, and must not block or throw (a throwing listener is logged once and otherwise
 * ignored; it never changes an operation's outcome).
 *
 * <p><b>Order.</b> An operation's phases are reported as they end, before the operation's own
 * {@code writeCompleted} or {@code readCompleted}, which come before its {@code
 * operationCompleted}; a cloud's requests as they end. Faults are reported when the client detects
 * them, which may be after the operation completed (a late answer from a cloud the operation no
 * longer waited for).
 */
public interface RafeStoreListener {
  /** A listener that does nothing. */
  RafeStoreListener NONE = new RafeStoreListener() {};

  /**
   * One listener that tells each of {@code listeners} every event, in order (for example an
   * application's own listener and {@code RafeStoreMetrics.listener()}). A listener that throws
   * does not keep the event from the ones after it.
   */
  static RafeStoreListener all(RafeStoreListener... listeners) {
    java.util.List<RafeStoreListener> each = java.util.List.of(listeners);
    return new AllListeners(each);
  }

  /**
   * A cloud failed or misbehaved during an operation on {@code key}: its id and what it did ({@link
   * CloudFault.Kind}: a failed request, a forged signature, corrupt or missing data, ...).
   */
  default void cloudFault(String key, CloudFault fault) {}

  /**
   * A read ignored a writer's logs of {@code key} (or, with {@code key} null, a certificate or a
   * revocation list), and why ({@link WriterTrustException#reason}: revoked, a certificate that is
   * forged, unknown, not yet valid, or expired before the log's newest entry). Not a cloud's fault:
   * every correct cloud holds the same signed bytes.
   */
  default void writerRejected(String key, WriterTrustException why) {}

  /** A write completed; its receipt carries the latency and the phases' timings. */
  default void writeCompleted(WriteReceipt receipt) {}

  /** A read of a whole value completed; its receipt names the cloud that served it. */
  default void readCompleted(ReadReceipt receipt) {}

  /**
   * One phase of an operation on {@code key} ended (successfully or not): writeDo, readM, writeDf
   * and writeM of a write, readM and the data fetch of a read, readM and writeM of a delete or a
   * collection, readM of a history page.
   */
  default void phaseCompleted(String key, PhaseTiming phase) {}

  /** A request to a cloud ended (answered, failed or cancelled). */
  default void cloudRequest(CloudRequest request) {}

  /**
   * An operation of the client ended, successfully or not: its kind, key, duration, outcome and
   * phases. Every call of the API ends with exactly one (a read stream when it reaches its end,
   * fails or is closed); a write's or a read's comes after its {@code writeCompleted} or {@code
   * readCompleted}.
   */
  default void operationCompleted(OperationReceipt receipt) {}

  /**
   * The background {@link Scrubber} found damage, repaired it or could not, found a version at
   * risk, or finished a pass ({@link ScrubEvent.Kind}).
   */
  default void scrubEvent(ScrubEvent event) {}

  /**
   * The read tier's cache dropped something it must not serve: bytes that did not match their
   * signed hash, a truncated, corrupt or foreign cache file ({@link CacheEvent}).
   */
  default void cacheEvent(CacheEvent event) {}
}
