package io.rafestore;

import java.time.Duration;
import java.util.Objects;

/**
 * How the read tier fetches ahead of reads ({@link RafeStore.Builder#prefetch}), as Tombolo's cloud
 * gateway does; prefetched units enter the same verified {@link ValueCache}. Needs a cache.
 *
 * <ul>
 *   <li>{@link Mode#SEQUENTIAL}: a ranged or streamed read of a value in parts that goes on from
 *       where the last one ended reads the next parts ahead, a fixed {@code partsInFlight} of them,
 *       when the last prefetched part is reached.
 *   <li>{@link Mode#ADAPTIVE_SEQUENTIAL}: the same streams, with the trigger distance set from the
 *       measured latency of the holders over the time between the stream's reads, and the degree
 *       adapted as AMP does (up when a stream consumes a whole prefetch, down when prefetched parts
 *       are wasted), several streams at once.
 *   <li>{@link Mode#HISTORY}: adaptive sequential, plus a probability graph of the accesses that
 *       are not part of a stream (nodes: a key and the byte range read), traversed most likely
 *       first to prefetch the metadata and data of what usually comes next; wrong prefetches lower
 *       their edges.
 * </ul>
 *
 * Prefetching is background work: at most {@code maxInFlight} prefetch requests at once, never more
 * than {@code maxBytesInFlight} bytes in flight, and no more than {@code dollarsPerHour} spent
 * (priced with {@link RafeStore.Builder#pricing}); a read that needs a unit being prefetched waits
 * for that request instead of sending its own. A prefetched unit is held apart from the cache until
 * its first read (then it enters the cache as a fetched unit does), at most {@code
 * maxBytesInFlight} bytes of them, oldest dropped first, and so is a value stored whole that this
 * client wrote: so memory for prefetching is at most twice {@code maxBytesInFlight} beside the
 * cache's own bound. Closing the client cancels prefetches. Immutable.
 *
 * @param mode which prefetching
 * @param maxInFlight prefetch requests in flight at once (1 to 64)
 * @param maxBytesInFlight bytes of prefetch requests in flight at once, and bytes of prefetched
 *     units kept until their first read (at least one part)
 * @param dollarsPerHour the most the prefetcher spends per hour (0 or more; 0 stops it)
 * @param graphNodes the most nodes the history graph keeps (least recently used dropped first)
 * @param minProbability the least likelihood of a graph prediction worth prefetching (0 to 1)
 */
public record Prefetch(
    Mode mode,
    int maxInFlight,
    long maxBytesInFlight,
    double dollarsPerHour,
    int graphNodes,
    double minProbability) {

  /** Which prefetching. */
  public enum Mode {
    /** None: the cache keeps what reads fetched. */
    OFF,
    /** Fixed read-ahead of sequential streams. */
    SEQUENTIAL,
    /** Read-ahead whose trigger distance and degree adapt to latency and waste (AMP). */
    ADAPTIVE_SEQUENTIAL,
    /** Adaptive read-ahead plus the history graph of the other accesses (Tombolo). */
    HISTORY
  }

  public Prefetch {
    Objects.requireNonNull(mode, "mode");
  }

  /** No prefetching (the default). */
  public static Prefetch off() {
    return of(Mode.OFF);
  }

  /**
   * Prefetching of {@code mode} with the default bounds: 16 requests and 64 MiB in flight, $1 per
   * hour, a graph of 100,000 nodes, predictions of at least 0.2 likelihood.
   */
  public static Prefetch of(Mode mode) {
    return new Prefetch(mode, 16, 64L * 1024 * 1024, 1.0, 100_000, 0.2);
  }

  /** The same with {@code n} prefetch requests in flight at most. */
  public Prefetch withMaxInFlight(int n) {
    return new Prefetch(mode, n, maxBytesInFlight, dollarsPerHour, graphNodes, minProbability);
  }

  /** The same with {@code bytes} in flight at most. */
  public Prefetch withMaxBytesInFlight(long bytes) {
    return new Prefetch(mode, maxInFlight, bytes, dollarsPerHour, graphNodes, minProbability);
  }

  /** The same with at most {@code dollars} spent per hour. */
  public Prefetch withDollarsPerHour(double dollars) {
    return new Prefetch(mode, maxInFlight, maxBytesInFlight, dollars, graphNodes, minProbability);
  }

  /** The same with a history graph of at most {@code nodes} nodes. */
  public Prefetch withGraphNodes(int nodes) {
    return new Prefetch(mode, maxInFlight, maxBytesInFlight, dollarsPerHour, nodes, minProbability);
  }

  /** The same, prefetching graph predictions of at least {@code p} likelihood. */
  public Prefetch withMinProbability(double p) {
    return new Prefetch(mode, maxInFlight, maxBytesInFlight, dollarsPerHour, graphNodes, p);
  }

  /** The dollar budget's time unit. */
  public static final Duration BUDGET_PERIOD = Duration.ofHours(1);
}
