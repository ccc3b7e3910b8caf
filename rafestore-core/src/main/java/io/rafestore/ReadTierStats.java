package io.rafestore;

/**
 * What the client's read tier (its {@link ValueCache} and prefetching, {@link
 * RafeStore.Builder#valueCache}) did since the client was built, from {@link
 * RafeStore#readTierStats()}. A snapshot; counters only grow. All zero without a cache.
 *
 * <p>A <em>unit</em> is what the cache keeps: a whole stored value or one stored part. Values
 * carried inline in their writer's log are not units (a read fetches no data for them). Dollars are
 * priced with {@link RafeStore.Builder#pricing} (a get and its egress at the price of the holder
 * that would have served, or did serve, the unit).
 *
 * @param hits units a read needed and found in the cache (checked against the signed hash)
 * @param misses units a read needed and fetched from a cloud (or took from a prefetch still in
 *     flight); each counted once in one of {@code coldMisses}, {@code lateMisses}, {@code
 *     evictedMisses}, {@code droppedMisses} and {@code refusedMisses}, by why it was not cached
 * @param bytesSaved bytes of the hits: downloads the cache saved
 * @param dollarsSaved what the hits' gets and egress would have cost
 * @param cloudFreeReads reads answered without any request to a cloud (a known version whose units
 *     were all cached, or a bounded-staleness read)
 * @param staleReads reads answered from metadata this client verified earlier, within their {@code
 *     maxStaleness}, instead of readM
 * @param prefetches units the prefetcher fetched (or tried to) ahead of a read
 * @param prefetchedBytes their bytes
 * @param prefetchDollars what they cost (gets and egress, and the readM of a metadata prefetch)
 * @param prefetchesUsed prefetched units a read then used
 * @param prefetchesWasted prefetched units evicted, failed or cancelled before any read used them
 * @param wastedBytes bytes of the wasted prefetches
 * @param wastedDollars what the wasted prefetches cost
 * @param discarded units whose bytes did not match their signed hash, and cache files found
 *     truncated, corrupt or foreign: dropped, never served
 * @param cachedBytes bytes the cache holds now
 * @param graphNodes nodes of the history graph now (accessed key and byte-range units)
 * @param graphEdges edges of the history graph now
 * @param graphBytes an estimate of the history graph's memory now
 * @param coldMisses misses of units this client had not cached, prefetched or chosen to prefetch
 *     (as far as it remembers): a first access, or one nothing predicted
 * @param lateMisses misses that waited for the unit's prefetch still in flight (the prefetch was
 *     late: the read paid only the rest of its fetch)
 * @param evictedMisses misses of units the cache held before and evicted
 * @param droppedMisses misses of units prefetched and dropped (evicted, failed or cancelled) before
 *     any read used them
 * @param refusedMisses misses of units the prefetcher chose but did not send: a budget refused
 * @param refusedByRequests prefetches refused because {@code maxInFlight} requests were in flight
 * @param refusedByBytes prefetches refused because {@code maxBytesInFlight} was reached
 * @param refusedByDollars prefetches refused because the dollar budget was spent
 */
public record ReadTierStats(
    long hits,
    long misses,
    long bytesSaved,
    double dollarsSaved,
    long cloudFreeReads,
    long staleReads,
    long prefetches,
    long prefetchedBytes,
    double prefetchDollars,
    long prefetchesUsed,
    long prefetchesWasted,
    long wastedBytes,
    double wastedDollars,
    long discarded,
    long cachedBytes,
    long graphNodes,
    long graphEdges,
    long graphBytes,
    long coldMisses,
    long lateMisses,
    long evictedMisses,
    long droppedMisses,
    long refusedMisses,
    long refusedByRequests,
    long refusedByBytes,
    long refusedByDollars) {

  /** The stats of a client without a cache. */
  public static final ReadTierStats NONE =
      new ReadTierStats(
          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** hits / (hits + misses); 0 before any unit was needed. */
  public double hitRatio() {
    long all = hits + misses;
    return all == 0 ? 0 : (double) hits / all;
  }

  /** misses / (hits + misses); 0 before any unit was needed. */
  public double missRatio() {
    long all = hits + misses;
    return all == 0 ? 0 : (double) misses / all;
  }

  /**
   * Of the prefetches that were settled (used or wasted), the share a read used; 0 before any
   * settled.
   */
  public double prefetchAccuracy() {
    long settled = prefetchesUsed + prefetchesWasted;
    return settled == 0 ? 0 : (double) prefetchesUsed / settled;
  }
}
