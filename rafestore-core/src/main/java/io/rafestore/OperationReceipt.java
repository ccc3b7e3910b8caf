package io.rafestore;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one call of the client's API did, however it ended: reported to {@link
 * RafeStoreListener#operationCompleted} after every operation (writes and reads too, after their
 * own {@code writeCompleted} or {@code readCompleted}), so a listener that wants one figure per
 * call (a timer by kind and outcome) needs only this event.
 *
 * @param kind which operation
 * @param key the key operated on; empty for operations on no one key ({@link Kind#KEYS}, {@link
 *     Kind#VERIFY_ALL}, {@link Kind#REPAIR_ALL}, {@link Kind#PROBE})
 * @param duration from the call to the end, on the client's scheduler (for a {@link
 *     Kind#STREAM_READ}, until the stream reached its end, failed or was closed)
 * @param outcome how it ended
 * @param bytes value bytes returned (reads) or written (writes); 0 for the other operations
 * @param phases the protocol phases the operation ran, in start order (empty for operations without
 *     phases: verify, repair, listings, probe, orphan collection, purge)
 * @param failure the failure's text, empty if the operation succeeded
 * @param tenant the tenant the operation was made for ({@link RafeStore#forTenant}; {@link
 *     CloudRequest#DEFAULT_TENANT} for the client itself)
 */
public record OperationReceipt(
    Kind kind,
    String key,
    Duration duration,
    Outcome outcome,
    long bytes,
    List<PhaseTiming> phases,
    String failure,
    String tenant) {

  /** A receipt of an operation of the client itself (tenant {@code default}). */
  public OperationReceipt(
      Kind kind,
      String key,
      Duration duration,
      Outcome outcome,
      long bytes,
      List<PhaseTiming> phases,
      String failure) {
    this(kind, key, duration, outcome, bytes, phases, failure, CloudRequest.DEFAULT_TENANT);
  }

  /** The client's operations, one per method of {@link RafeStore} (and its blocking view). */
  public enum Kind {
    /** {@code write}, including streaming writes. */
    WRITE,
    /** {@code read(key)} and {@code read(key, version)}: readM, dataFetch. */
    READ,
    /** {@code read(key, version, offset, length)}: readM, dataFetch. */
    RANGED_READ,
    /** {@code openStream}: readM, then dataFetch while the caller reads the stream. */
    STREAM_READ,
    /** {@code history}: readM. */
    HISTORY,
    /** {@code delete}: readM, writeM (the tombstone), then the data objects are deleted. */
    DELETE,
    /** {@code collect}: readM, writeM (the watermark), then the data objects are deleted. */
    COLLECT,
    /** {@code collectOrphans}. */
    COLLECT_ORPHANS,
    /** {@code purge}. */
    PURGE,
    /** {@code verify}. */
    VERIFY,
    /** {@code repair}. */
    REPAIR,
    /** {@code verifyAll} (each key's verify is reported too). */
    VERIFY_ALL,
    /** {@code repairAll} (each key's repair is reported too). */
    REPAIR_ALL,
    /** {@code keys()} and {@code keys(after, limit)}. */
    KEYS,
    /** {@code probe}. */
    PROBE
  }

  /** How an operation ended, by the kind of its failure. */
  public enum Outcome {
    /** It succeeded. */
    OK,
    /**
     * The key or version does not exist, or was collected ({@link KeyNotFoundException}, {@link
     * VersionNotFoundException}, {@link VersionCollectedException}).
     */
    NOT_FOUND,
    /**
     * No valid data could be found: every copy failed verification ({@link IntegrityException}).
     */
    INTEGRITY,
    /** Too few clouds answered ({@link QuorumException}). */
    UNAVAILABLE,
    /** The operation timeout passed. */
    TIMEOUT,
    /** The caller cancelled it (or, for a stream, closed it before its end). */
    CANCELLED,
    /** Any other failure. */
    FAILED
  }

  public OperationReceipt {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(failure, "failure");
    Objects.requireNonNull(tenant, "tenant");
    phases = List.copyOf(phases);
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0, was " + bytes);
    }
  }

  /** Whether the operation succeeded. */
  public boolean succeeded() {
    return outcome == Outcome.OK;
  }
}
