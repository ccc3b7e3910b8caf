package io.rafestore;

/**
 * How readM learns which writers have a log for a key ({@link RafeStore.Builder#writerDiscovery}).
 *
 * <p>Whatever the choice, a read returns the same result: every completed write is seen, and a
 * faulty cloud that hides writers, invents writers or serves stale logs changes nothing but its own
 * share of the cost (design.md section 5, "readM with many writers"). The choice decides only the
 * requests a read sends to each cloud and their round trips.
 */
public enum WriterDiscovery {
  /**
   * {@link #PER_WRITER} when the client trusts at most {@link #AUTO_PER_WRITER_MAX} writers
   * explicitly and no operator key ({@link RafeStore.Builder#trustOperator}), else {@link
   * #LISTING}: a few GETs cost less than one listing (a list request is priced 12.5 GETs by S3 and
   * GCS) and take one round trip for sure; certified writers cannot be enumerated by a reader, so
   * with an operator key only a listing finds a writer certified since the last trust refresh.
   */
  AUTO,
  /**
   * One GET per trusted writer per cloud: one round trip, requests growing with the writers. With
   * operator keys, the trusted writers are the certified ones known at the last trust refresh, so a
   * new certified writer's writes are read from the next refresh on ({@link
   * RafeStore.Builder#trustRefresh}).
   */
  PER_WRITER,
  /**
   * One listing of the key's log prefix per cloud, then a GET of each trusted writer it names
   * (started together with the listing for the writers this client expects): about two requests per
   * cloud whatever the number of trusted writers. A listed writer the client does not know yet has
   * its certificate read and checked first (operator keys).
   */
  LISTING;

  /** The most trusted writers for which {@link #AUTO} keeps {@link #PER_WRITER}. */
  public static final int AUTO_PER_WRITER_MAX = 8;
}
