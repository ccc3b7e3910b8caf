package io.rafestore;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a completed read did: reported to {@link RafeStoreListener#readCompleted}.
 *
 * @param info the version read, as its signed metadata describes it
 * @param servedBy the cloud whose bytes were returned, or {@code (inline)} for a value carried in
 *     its writer's signed log
 * @param bytes the size of the value returned
 * @param latency time from the call to completion, on the client's scheduler
 * @param phases readM and the data fetch, in start order (a read that had to read metadata again,
 *     because a collection raced it, lists a phase twice); none for a read the read tier answered
 *     without a cloud
 * @param fromCache whether the value's bytes came from the client's {@link ValueCache} (checked
 *     against the signed hash) rather than from a cloud; {@code servedBy} is then {@link
 *     StoredValue#FROM_CACHE}
 */
public record ReadReceipt(
    VersionInfo info,
    String servedBy,
    long bytes,
    Duration latency,
    List<PhaseTiming> phases,
    boolean fromCache) {
  public ReadReceipt {
    Objects.requireNonNull(info, "info");
    Objects.requireNonNull(servedBy, "servedBy");
    Objects.requireNonNull(latency, "latency");
    phases = List.copyOf(phases);
  }

  /** A receipt of a read whose bytes came from a cloud (or inline), not from the cache. */
  public ReadReceipt(
      VersionInfo info, String servedBy, long bytes, Duration latency, List<PhaseTiming> phases) {
    this(info, servedBy, bytes, latency, phases, false);
  }

  /** The key read. */
  public String key() {
    return info.key();
  }

  /** The version read. */
  public Version version() {
    return info.version();
  }
}
