package io.rafestore.internal.protocol.selection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which holder of a whole copy a read asks first, by the read's kind, and when an idle holder
 * should also be asked (a steal): the client-side form of FAST's default-with-steal replica
 * selection (issue 19).
 *
 * <p><b>Kinds.</b> A read of fewer than {@link #SMALL_READ} bytes that is not one part of a value
 * in parts is {@link Kind#SMALL}; anything else (a large value, or a part, which a reader reads
 * after the one before) is {@link Kind#BULK}.
 *
 * <p><b>Rule</b> (deterministic given the model; ties broken by the configured cloud order):
 *
 * <ul>
 *   <li>A small read goes to the holder with the lowest queue-aware prediction ({@link
 *       LatencyModel#predictQueued}) for its size, and that holder is remembered as a small-read
 *       holder.
 *   <li>A bulk read goes to the holder with the lowest plain prediction ({@link
 *       LatencyModel#predict}), unless that holder served a small read within {@link
 *       #SMALL_READ_MEMORY}: then it goes to the best holder that did not, if that one is predicted
 *       at most {@link #BULK_TOLERANCE} times slower; streams then stay off the holder small reads
 *       use, so they do not queue behind each other. Bulk reads ignore queues because most of what
 *       is in flight on a stream's holder is that stream's own parts, already placed by the reader
 *       ({@code layout.Spread}); counting them as a queue sent the next parts and the read-ahead to
 *       a farther holder and made prefetched parts arrive too late ({@code PrefetcherTest}:
 *       accuracy fell from over 0.9 to 0.84).
 *   <li>The other holders follow, best prediction first (the order hedges and fail-overs use).
 * </ul>
 *
 * <p><b>Steal.</b> A holder with no request in flight is idle. {@link #thief} names the idle
 * holder, not yet asked, with the lowest prediction, if the holder asked is predicted to answer
 * later than {@link #STEAL_FACTOR} times that plus {@link #STEAL_SLACK}; the fetch then also asks
 * it (see {@code layout.DataFetch}).
 */
public final class ReadRouting {
  /** Reads below this many bytes are small. */
  public static final long SMALL_READ = 1L << 20;

  /** How long a holder that served a small read is avoided by bulk reads. */
  public static final Duration SMALL_READ_MEMORY = Duration.ofSeconds(2);

  /** How much slower another holder may be predicted and still take a bulk read. */
  public static final double BULK_TOLERANCE = 1.25;

  /**
   * How much later than an idle holder the asked one must be predicted before the idle one steals.
   */
  public static final double STEAL_FACTOR = 1.5;

  /** Added to the steal threshold so that near-equal tiny predictions never steal. */
  public static final Duration STEAL_SLACK = Duration.ofMillis(5);

  private ReadRouting() {}

  /** What kind of read a fetch is. */
  public enum Kind {
    SMALL,
    BULK
  }

  /** The kind of a read of {@code bytes}; {@code part} for one part of a value in parts. */
  public static Kind kind(long bytes, boolean part) {
    return part || bytes >= SMALL_READ ? Kind.BULK : Kind.SMALL;
  }

  /**
   * The holders in the order a read of {@code bytes} of kind {@code kind} asks them: the first is
   * the routed holder. A small read's first holder is remembered in the model. {@code holders} must
   * not be empty.
   */
  public static List<String> route(
      LatencyModel model, List<String> holders, long bytes, Kind kind) {
    boolean small = kind == Kind.SMALL;
    List<String> out = byPrediction(model, holders, bytes, small);
    if (out.isEmpty()) {
      return out;
    }
    if (small) {
      model.smallReadRouted(out.get(0));
      return out;
    }
    String best = out.get(0);
    if (out.size() > 1 && model.smallReadWithin(best, SMALL_READ_MEMORY)) {
      long bestNanos = model.predict(best, bytes).toNanos();
      for (int i = 1; i < out.size(); i++) {
        String other = out.get(i);
        if (model.smallReadWithin(other, SMALL_READ_MEMORY)) {
          continue;
        }
        if (model.predict(other, bytes).toNanos() <= BULK_TOLERANCE * bestNanos) {
          out.remove(i);
          out.add(0, other);
        }
        break;
      }
    }
    return out;
  }

  /** Whether {@code holder} served a small read within {@link #SMALL_READ_MEMORY}. */
  public static boolean servedSmallReads(LatencyModel model, String holder) {
    return model.smallReadWithin(holder, SMALL_READ_MEMORY);
  }

  /**
   * {@code holders} by prediction for {@code bytes}, queue-aware if {@code queued}, ties in
   * configured order.
   */
  public static List<String> byPrediction(
      LatencyModel model, List<String> holders, long bytes, boolean queued) {
    List<String> out = new ArrayList<>(holders);
    long[] predicted = new long[out.size()];
    for (int i = 0; i < predicted.length; i++) {
      predicted[i] =
          (queued ? model.predictQueued(out.get(i), bytes) : model.predict(out.get(i), bytes))
              .toNanos();
    }
    List<Integer> index = new ArrayList<>();
    for (int i = 0; i < predicted.length; i++) {
      index.add(i);
    }
    index.sort(
        Comparator.<Integer>comparingLong(i -> predicted[i])
            .thenComparingInt(i -> model.order(out.get(i))));
    List<String> sorted = new ArrayList<>(out.size());
    for (int i : index) {
      sorted.add(out.get(i));
    }
    return sorted;
  }

  /**
   * The idle holder that should steal a read of {@code bytes} from {@code asked}, or null: among
   * {@code candidates} (holders not asked yet) those with no request in flight, the one with the
   * lowest prediction, if {@code askedNanos} (when {@code asked} is predicted to answer, from now)
   * exceeds {@link #STEAL_FACTOR} times its prediction plus {@link #STEAL_SLACK}.
   */
  public static String thief(
      LatencyModel model, long askedNanos, List<String> candidates, long bytes) {
    String best = null;
    long bestNanos = Long.MAX_VALUE;
    for (String c : candidates) {
      if (model.requestsInFlight(c) != 0) {
        continue;
      }
      long p = model.predictQueued(c, bytes).toNanos();
      if (p < bestNanos || (p == bestNanos && model.order(c) < model.order(best))) {
        best = c;
        bestNanos = p;
      }
    }
    if (best == null) {
      return null;
    }
    return askedNanos > STEAL_FACTOR * bestNanos + STEAL_SLACK.toNanos() ? best : null;
  }
}
