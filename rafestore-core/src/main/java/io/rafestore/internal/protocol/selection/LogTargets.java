package io.rafestore.internal.protocol.selection;

import io.rafestore.Objective;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * Which clouds writeM sends a signed log to first (design.md section 5, "writeM under the cost
 * objective"). A pure function of the clouds, f, the log's size, the objective, the latency model's
 * predictions and the prices; it sends nothing.
 *
 * <p>Under the latency objective every cloud gets the log at once and the first n - f
 * acknowledgements complete the phase (the protocol as it always ran). Otherwise the clouds are
 * ranked by what one log costs on each ({@link #usd}: the put, a month of the log's storage and one
 * download of it), cheapest first, ties by the predicted upload time, then configuration order, a
 * cloud recently {@code demoted} (it failed or missed a hedge deadline) last; the n - f first are
 * the <em>quorum plan</em>. The objective then compares that plan (its dollars, and the predicted
 * time of its slowest cloud) with the log on every cloud (n clouds' dollars, the (n-f)-th fastest
 * answer) by {@link Objective#compare}: the cost objective takes the plan whenever the spare clouds
 * cost anything, a weighted objective when the dollars saved outweigh the seconds lost. The spares
 * are sent the log only when a cloud of the plan fails (at once, one spare per failure) or when the
 * plan has not reached n - f acknowledgements by the hedge deadline ({@link #hedgeAfter}).
 *
 * <p>Stateless and thread-safe.
 */
public final class LogTargets {
  private LogTargets() {}

  /** The hedge deadline is this many times the predicted (n-f)-th answer of the plan ... */
  public static final double HEDGE_FACTOR = 2.0;

  /** ... plus this floor (timer granularity, a prediction from few samples). */
  public static final Duration HEDGE_FLOOR = Duration.ofMillis(50);

  /**
   * Where one log goes.
   *
   * @param first the clouds sent the log at once
   * @param spares the clouds sent it only on a failure or after the hedge deadline, in that order
   *     (empty: every cloud is in {@code first})
   * @param hedgeAfter when the spares are started if {@code first} has not reached the quorum (zero
   *     when there are no spares)
   */
  public record Plan(List<String> first, List<String> spares, Duration hedgeAfter) {
    public Plan {
      first = List.copyOf(first);
      spares = List.copyOf(spares);
    }

    /** Whether every cloud gets the log at once (the latency objective's writeM). */
    public boolean everyCloud() {
      return spares.isEmpty();
    }
  }

  /** USD one log of {@code bytes} costs on a cloud priced {@code p}: put, a month, one download. */
  public static double usd(PriceBook.Price p, long bytes) {
    return p.putPer1000() / 1000
        + bytes / 1e9 * p.storagePerGBMonth() * LayoutChooser.HORIZON_MONTHS
        + bytes / 1e9 * p.egressPerGB();
  }

  /**
   * The plan for a log of {@code bytes} on {@code clouds} (configuration order) tolerating {@code
   * f} faults.
   *
   * @param demoted clouds that failed a log put or missed a hedge deadline recently: ranked last
   */
  public static Plan plan(
      List<String> clouds,
      int f,
      long bytes,
      Objective objective,
      LayoutChooser.Timing timing,
      PriceBook prices,
      Set<String> demoted) {
    int quorum = clouds.size() - f;
    if (objective.isLatency() || f == 0 || quorum < 1) {
      return new Plan(clouds, List.of(), Duration.ZERO);
    }
    List<Ranked> order =
        rank(clouds, bytes, prices, c -> timing.upload(c, bytes, 1).toNanos(), demoted);
    List<String> first = new ArrayList<>();
    List<String> spares = new ArrayList<>();
    double usdFirst = 0;
    double usdAll = 0;
    long slowestFirst = 0;
    long[] nanos = new long[order.size()];
    for (int r = 0; r < order.size(); r++) {
      Ranked c = order.get(r);
      usdAll += c.usd();
      nanos[r] = c.nanos();
      if (r < quorum) {
        first.add(c.id());
        usdFirst += c.usd();
        slowestFirst = Math.max(slowestFirst, c.nanos());
      } else {
        spares.add(c.id());
      }
    }
    Arrays.sort(nanos);
    long quorumAll = nanos[quorum - 1];
    if (objective.compare(slowestFirst / 1e9, usdFirst, quorumAll / 1e9, usdAll) >= 0) {
      return new Plan(clouds, List.of(), Duration.ZERO);
    }
    return new Plan(first, spares, hedgeAfter(Duration.ofNanos(slowestFirst)));
  }

  /**
   * {@code clouds} cheapest first for an object of {@code bytes} ({@link #usd}), {@code demoted}
   * ones last, ties by {@code predictedNanos}, then by their order in {@code clouds}: the log
   * plan's ranking, and where the cost objective puts packs ({@code Context.cheapestDataOrder}).
   */
  public static List<String> cheapestFirst(
      List<String> clouds,
      long bytes,
      PriceBook prices,
      ToLongFunction<String> predictedNanos,
      Set<String> demoted) {
    List<String> out = new ArrayList<>(clouds.size());
    for (Ranked c : rank(clouds, bytes, prices, predictedNanos, demoted)) {
      out.add(c.id());
    }
    return out;
  }

  /** A cloud with what one object costs there and its predicted time. */
  private record Ranked(String id, int index, double usd, long nanos) {}

  private static List<Ranked> rank(
      List<String> clouds,
      long bytes,
      PriceBook prices,
      ToLongFunction<String> predictedNanos,
      Set<String> demoted) {
    List<Ranked> out = new ArrayList<>(clouds.size());
    for (int i = 0; i < clouds.size(); i++) {
      String c = clouds.get(i);
      out.add(new Ranked(c, i, usd(prices.of(c), bytes), predictedNanos.applyAsLong(c)));
    }
    out.sort(
        Comparator.comparing((Ranked c) -> demoted.contains(c.id()))
            .thenComparingDouble(Ranked::usd)
            .thenComparingLong(Ranked::nanos)
            .thenComparingInt(Ranked::index));
    return out;
  }

  /** The hedge deadline for a plan whose (n-f)-th answer is predicted after {@code predicted}. */
  public static Duration hedgeAfter(Duration predicted) {
    return Duration.ofNanos((long) (predicted.toNanos() * HEDGE_FACTOR)).plus(HEDGE_FLOOR);
  }
}
