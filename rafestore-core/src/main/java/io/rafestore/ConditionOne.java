package io.rafestore;

import java.time.Duration;

/**
 * The paper's Condition 1, {@code HH <= L + H}, evaluated for the client's current arrangement from
 * its latency estimates: when it holds, the f+1-th writeDo acknowledgement is expected before readM
 * ends, so writes contact only f+1 data clouds.
 *
 * <ul>
 *   <li>{@code L}: when readM starts, i.e. the first writeDo acknowledgement: the fastest of the
 *       f+1 chosen data clouds. (The paper says "the fastest cloud"; in its Table 2 arrangements
 *       the two readings agree on whether the condition holds.)
 *   <li>{@code H}: how long readM takes: the slowest of the 2f+1 (n-f) fastest metadata clouds.
 *   <li>{@code HH}: the slowest of the f+1 chosen data clouds.
 * </ul>
 *
 * <p>For a value of a given size each data-cloud term also includes the time to push the value
 * through that cloud's estimated bandwidth, which is what makes large values miss the condition in
 * the paper's Table 3.
 *
 * @param valueSize the value size the terms were computed for (0 for "a few bytes")
 * @param l L
 * @param h H
 * @param hh HH
 * @param lCloud the cloud behind L
 * @param hCloud the cloud behind H
 * @param hhCloud the cloud behind HH
 */
public record ConditionOne(
    long valueSize,
    Duration l,
    Duration h,
    Duration hh,
    String lCloud,
    String hCloud,
    String hhCloud) {

  /** Whether {@code HH <= L + H}. */
  public boolean holds() {
    return hh.compareTo(l.plus(h)) <= 0;
  }

  @Override
  public String toString() {
    return String.format(
        "Condition 1 for %d-byte values: HH=%d ms (%s) %s L=%d ms (%s) + H=%d ms (%s): %s",
        valueSize,
        hh.toMillis(),
        hhCloud,
        holds() ? "<=" : ">",
        l.toMillis(),
        lCloud,
        h.toMillis(),
        hCloud,
        holds() ? "holds" : "fails");
  }
}
