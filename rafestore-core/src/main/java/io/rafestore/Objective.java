package io.rafestore;

import java.util.Locale;

/**
 * What the layout chooser ({@link Layout#AUTO}) minimises for each write, and how a cost-minded
 * client treats anticipated reads. One number says it: what one second of a write's latency is
 * worth to the user, in US dollars ({@link #usdPerSecond()}). Each candidate layout is scored as
 * <em>predicted dollars + predicted seconds x usdPerSecond</em> and the lowest score wins:
 *
 * <ul>
 *   <li>{@link #latency()} (the default): a second is worth more than any dollar figure, so the
 *       predicted fastest layout wins (dollars only break ties);
 *   <li>{@link #cost()}: a second is worth nothing, so the cheapest layout wins (time only breaks
 *       ties), and, unless {@code RafeStore.Builder.speculativeReadLimit} was set explicitly, reads
 *       anticipate only small fetches ({@link #COST_SPECULATIVE_READ_LIMIT}), since a wasted
 *       anticipated fetch costs its egress;
 *   <li>{@link #weighted(double)}: anything in between. The dollars of a candidate are those of one
 *       write, one read of it and one month of its storage (design.md, "The layout chooser"), a few
 *       millionths of a dollar for a small value; so {@code weighted(1e-5)} trades one second of
 *       latency for ten millionths of a dollar per write, and a user who pays for 100,000 writes a
 *       day and values each second of them at one dollar in total would pass {@code 1.0 / 100_000}.
 * </ul>
 *
 * <p>Immutable and thread-safe; equal objectives are {@link #equals equal}.
 */
public final class Objective {
  /**
   * The anticipated-read limit of the {@link #cost()} objective when none was set explicitly: 64
   * KiB, so a wasted anticipated fetch costs at most that much egress.
   */
  public static final long COST_SPECULATIVE_READ_LIMIT = 64 * 1024;

  private static final Objective LATENCY = new Objective(Double.POSITIVE_INFINITY);
  private static final Objective COST = new Objective(0);

  private final double usdPerSecond;

  private Objective(double usdPerSecond) {
    this.usdPerSecond = usdPerSecond;
  }

  /** The predicted fastest layout (the default). */
  public static Objective latency() {
    return LATENCY;
  }

  /** The predicted cheapest layout (requests, egress of one read, one month of storage). */
  public static Objective cost() {
    return COST;
  }

  /**
   * The layout with the lowest predicted dollars + seconds x {@code usdPerSecond}.
   *
   * @param usdPerSecond what one second of a write's latency is worth, in US dollars: 0 is {@link
   *     #cost()}, positive infinity is {@link #latency()}
   * @throws IllegalArgumentException if {@code usdPerSecond} is negative or NaN
   */
  public static Objective weighted(double usdPerSecond) {
    if (Double.isNaN(usdPerSecond) || usdPerSecond < 0) {
      throw new IllegalArgumentException(
          "objective: usdPerSecond must be >= 0 (0 = cost, infinity = latency), was "
              + usdPerSecond);
    }
    if (usdPerSecond == 0) {
      return COST;
    }
    return Double.isInfinite(usdPerSecond) ? LATENCY : new Objective(usdPerSecond);
  }

  /**
   * Parses an objective as the configuration file writes it: {@code latency}, {@code cost} or a
   * number of US dollars per second (with or without a {@code weighted:} prefix).
   *
   * @throws IllegalArgumentException if {@code text} is none of these
   */
  public static Objective parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("latency")) {
      return LATENCY;
    }
    if (t.equals("cost")) {
      return COST;
    }
    if (t.startsWith("weighted:")) {
      t = t.substring("weighted:".length()).trim();
    }
    try {
      return weighted(Double.parseDouble(t));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "objective must be latency, cost or a number of USD per second, was '" + text + "'", e);
    }
  }

  /** What one second of a write's latency is worth, in US dollars (0 to positive infinity). */
  public double usdPerSecond() {
    return usdPerSecond;
  }

  /** Whether this is {@link #latency()}. */
  public boolean isLatency() {
    return Double.isInfinite(usdPerSecond);
  }

  /** Whether this is {@link #cost()}. */
  public boolean isCost() {
    return usdPerSecond == 0;
  }

  /**
   * The score of a candidate predicted to take {@code seconds} and cost {@code usd}: lower is
   * better. For {@link #latency()} the seconds alone (dollars break ties, see {@link #compare}).
   */
  public double score(double seconds, double usd) {
    if (isLatency()) {
      return seconds;
    }
    return usd + seconds * usdPerSecond;
  }

  /**
   * Orders two candidates by this objective: by {@link #score}, then by the other quantity (time
   * for the cost objective, dollars otherwise).
   */
  public int compare(double secondsA, double usdA, double secondsB, double usdB) {
    int c = Double.compare(score(secondsA, usdA), score(secondsB, usdB));
    if (c != 0) {
      return c;
    }
    return isCost() ? Double.compare(secondsA, secondsB) : Double.compare(usdA, usdB);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Objective other && Double.compare(usdPerSecond, other.usdPerSecond) == 0;
  }

  @Override
  public int hashCode() {
    return Double.hashCode(usdPerSecond);
  }

  /**
   * {@code latency}, {@code cost} or {@code weighted:<usd per second>}, as {@link #parse} reads.
   */
  @Override
  public String toString() {
    if (isLatency()) {
      return "latency";
    }
    if (isCost()) {
      return "cost";
    }
    return "weighted:" + usdPerSecond;
  }
}
