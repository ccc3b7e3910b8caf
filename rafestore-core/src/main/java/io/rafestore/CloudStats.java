package io.rafestore;

import java.util.Objects;

/**
 * What one cloud has been asked to do so far, as counted by the client around its driver: the
 * numbers the benchmarks and the cost model read. A snapshot; counters only grow.
 *
 * @param cloudId the cloud
 * @param puts put requests started
 * @param gets get requests started (ranged or not)
 * @param deletes delete requests started
 * @param lists list requests started
 * @param bytesUp payload bytes sent to the cloud (puts)
 * @param bytesDown payload bytes received from the cloud (gets)
 * @param cancelled requests cancelled by the client because the protocol no longer needed them
 * @param errors requests that failed (not counting cancelled ones)
 * @param speculations anticipated data fetches that reads started on this cloud's log (the first
 *     validly signed log of their readM); their requests went to the version's holders and are
 *     counted there as gets
 * @param speculationsKept of those, fetches readM confirmed (it decided on the same signed entry)
 * @param speculationsWasted of those, fetches cancelled because readM decided on another entry (a
 *     newer write, or this cloud's log was stale) or failed; each cost a request and its egress
 * @param speculativeBytes the bytes those fetches asked for (the value, or the first part a read
 *     needs), kept or wasted
 * @param scrubRequests of the requests above, those the client's background {@link Scrubber}s sent
 * @param scrubBytesDown of the bytes received, those the scrubbers downloaded
 * @param scrubFindings problems the scrubbers found on this cloud
 * @param scrubRepairs problems the scrubbers repaired on this cloud (found before a repair, gone
 *     after it)
 * @param requestDollars what the requests above cost at this cloud's {@link Pricing} (puts, gets
 *     and lists; deletes are free), in US dollars; 0 in a snapshot not priced ({@link #priced})
 * @param egressDollars what the bytes received above cost as the cloud's egress at its {@link
 *     Pricing}, in US dollars. The bytes the client received: a get it cancelled while the answer
 *     was on the way may have been billed for more. Stored bytes are not estimated here: the client
 *     rewrites each metadata log in place and does not learn what a delete freed, so its bytes up
 *     would overstate them many times.
 * @param routedSmall small reads of a whole copy routed to this cloud first (below {@code
 *     ReadRouting.SMALL_READ}, 1 MiB; the holder predicted fastest, queue included)
 * @param routedBulk large or part-by-part reads routed to this cloud first (kept off the holder
 *     small reads use when another is not much slower)
 * @param steals reads this cloud was also asked for because it was idle while the holder first
 *     asked was predicted much later (at most one per fetch)
 * @param stealsWon of those, the ones this cloud answered first with verified bytes
 * @param stealsWasted of those, the ones whose answer lost the race (cancelled) or was wrong or
 *     failed; each cost a request and perhaps its egress
 */
public record CloudStats(
    String cloudId,
    long puts,
    long gets,
    long deletes,
    long lists,
    long bytesUp,
    long bytesDown,
    long cancelled,
    long errors,
    long speculations,
    long speculationsKept,
    long speculationsWasted,
    long speculativeBytes,
    long scrubRequests,
    long scrubBytesDown,
    long scrubFindings,
    long scrubRepairs,
    double requestDollars,
    double egressDollars,
    long routedSmall,
    long routedBulk,
    long steals,
    long stealsWon,
    long stealsWasted) {

  public CloudStats {
    Objects.requireNonNull(cloudId, "cloudId");
  }

  /** Counts and dollars of a cloud no read was routed to. */
  public CloudStats(
      String cloudId,
      long puts,
      long gets,
      long deletes,
      long lists,
      long bytesUp,
      long bytesDown,
      long cancelled,
      long errors,
      long speculations,
      long speculationsKept,
      long speculationsWasted,
      long speculativeBytes,
      long scrubRequests,
      long scrubBytesDown,
      long scrubFindings,
      long scrubRepairs,
      double requestDollars,
      double egressDollars) {
    this(
        cloudId,
        puts,
        gets,
        deletes,
        lists,
        bytesUp,
        bytesDown,
        cancelled,
        errors,
        speculations,
        speculationsKept,
        speculationsWasted,
        speculativeBytes,
        scrubRequests,
        scrubBytesDown,
        scrubFindings,
        scrubRepairs,
        requestDollars,
        egressDollars,
        0,
        0,
        0,
        0,
        0);
  }

  /** Counts not priced (no dollars). */
  public CloudStats(
      String cloudId,
      long puts,
      long gets,
      long deletes,
      long lists,
      long bytesUp,
      long bytesDown,
      long cancelled,
      long errors,
      long speculations,
      long speculationsKept,
      long speculationsWasted,
      long speculativeBytes,
      long scrubRequests,
      long scrubBytesDown,
      long scrubFindings,
      long scrubRepairs) {
    this(
        cloudId,
        puts,
        gets,
        deletes,
        lists,
        bytesUp,
        bytesDown,
        cancelled,
        errors,
        speculations,
        speculationsKept,
        speculationsWasted,
        speculativeBytes,
        scrubRequests,
        scrubBytesDown,
        scrubFindings,
        scrubRepairs,
        0,
        0);
  }

  /** Request counts of a cloud no read anticipated a fetch on. */
  public CloudStats(
      String cloudId,
      long puts,
      long gets,
      long deletes,
      long lists,
      long bytesUp,
      long bytesDown,
      long cancelled,
      long errors) {
    this(cloudId, puts, gets, deletes, lists, bytesUp, bytesDown, cancelled, errors, 0, 0, 0, 0);
  }

  /** Counts of a cloud no scrubber has worked on. */
  public CloudStats(
      String cloudId,
      long puts,
      long gets,
      long deletes,
      long lists,
      long bytesUp,
      long bytesDown,
      long cancelled,
      long errors,
      long speculations,
      long speculationsKept,
      long speculationsWasted,
      long speculativeBytes) {
    this(
        cloudId,
        puts,
        gets,
        deletes,
        lists,
        bytesUp,
        bytesDown,
        cancelled,
        errors,
        speculations,
        speculationsKept,
        speculationsWasted,
        speculativeBytes,
        0,
        0,
        0,
        0);
  }

  /** What this cloud has cost so far, in US dollars: requests and egress ({@link Pricing}). */
  public double dollars() {
    return requestDollars + egressDollars;
  }

  /**
   * These counts priced at {@code pricing}: {@link #requestDollars()} and {@link #egressDollars()}
   * computed from them.
   */
  public CloudStats priced(Pricing pricing) {
    double requests = puts * pricing.perPut() + gets * pricing.perGet() + lists * pricing.perList();
    return new CloudStats(
        cloudId,
        puts,
        gets,
        deletes,
        lists,
        bytesUp,
        bytesDown,
        cancelled,
        errors,
        speculations,
        speculationsKept,
        speculationsWasted,
        speculativeBytes,
        scrubRequests,
        scrubBytesDown,
        scrubFindings,
        scrubRepairs,
        requests,
        pricing.egress(bytesDown),
        routedSmall,
        routedBulk,
        steals,
        stealsWon,
        stealsWasted);
  }

  /** These counts with the scrubbers' on this cloud. */
  public CloudStats withScrub(long requests, long bytesDown, long findings, long repairs) {
    return new CloudStats(
        cloudId,
        puts,
        gets,
        deletes,
        lists,
        bytesUp,
        this.bytesDown,
        cancelled,
        errors,
        speculations,
        speculationsKept,
        speculationsWasted,
        speculativeBytes,
        requests,
        bytesDown,
        findings,
        repairs,
        requestDollars,
        egressDollars,
        routedSmall,
        routedBulk,
        steals,
        stealsWon,
        stealsWasted);
  }

  /** These counts with the given read routing counts (see the record's parameters). */
  public CloudStats withRouting(
      long routedSmall, long routedBulk, long steals, long stealsWon, long stealsWasted) {
    return new CloudStats(
        cloudId,
        puts,
        gets,
        deletes,
        lists,
        bytesUp,
        bytesDown,
        cancelled,
        errors,
        speculations,
        speculationsKept,
        speculationsWasted,
        speculativeBytes,
        scrubRequests,
        scrubBytesDown,
        scrubFindings,
        scrubRepairs,
        requestDollars,
        egressDollars,
        routedSmall,
        routedBulk,
        steals,
        stealsWon,
        stealsWasted);
  }

  /** All requests started, of every kind. */
  public long requests() {
    return puts + gets + deletes + lists;
  }

  /** The difference {@code this - earlier}, for measuring one phase of a run. */
  public CloudStats minus(CloudStats earlier) {
    if (!cloudId.equals(earlier.cloudId)) {
      throw new IllegalArgumentException(
          "cannot subtract stats of cloud " + earlier.cloudId + " from " + cloudId);
    }
    return new CloudStats(
        cloudId,
        puts - earlier.puts,
        gets - earlier.gets,
        deletes - earlier.deletes,
        lists - earlier.lists,
        bytesUp - earlier.bytesUp,
        bytesDown - earlier.bytesDown,
        cancelled - earlier.cancelled,
        errors - earlier.errors,
        speculations - earlier.speculations,
        speculationsKept - earlier.speculationsKept,
        speculationsWasted - earlier.speculationsWasted,
        speculativeBytes - earlier.speculativeBytes,
        scrubRequests - earlier.scrubRequests,
        scrubBytesDown - earlier.scrubBytesDown,
        scrubFindings - earlier.scrubFindings,
        scrubRepairs - earlier.scrubRepairs,
        requestDollars - earlier.requestDollars,
        egressDollars - earlier.egressDollars,
        routedSmall - earlier.routedSmall,
        routedBulk - earlier.routedBulk,
        steals - earlier.steals,
        stealsWon - earlier.stealsWon,
        stealsWasted - earlier.stealsWasted);
  }
}
