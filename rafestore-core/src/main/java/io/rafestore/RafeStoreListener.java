package io.rafestore;

/**
 * Observes a client's operations: faults seen on clouds and completed writes. Every method has an
 * empty default, so implement only what you need. Methods are called on the thread that observed
 * the event; they must be fast and must not throw (a throwing listener is ignored).
 */
public interface RafeStoreListener {
  /** A listener that does nothing. */
  RafeStoreListener NONE = new RafeStoreListener() {};

  /** A cloud failed or misbehaved during an operation on {@code key}. */
  default void cloudFault(String key, CloudFault fault) {}

  /** A write completed. */
  default void writeCompleted(WriteReceipt receipt) {}
}
