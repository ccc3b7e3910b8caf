package io.rafestore.internal.protocol.selection;

import io.rafestore.Scheduler;
import io.rafestore.internal.protocol.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-cloud estimates of round-trip time and bandwidth, updated by every successful request, used
 * to order data clouds (fastest predicted completion first for the value's size), to time hedges
 * and to evaluate Condition 1.
 *
 * <p>Requests of fewer than {@link #TRANSFER} bytes update the RTT estimate; larger ones update the
 * bandwidth estimate from their time beyond one round trip (the median of the recent round trips).
 * Both are exponentially weighted moving averages (weight {@link #ALPHA} for the newest sample), so
 * a cloud that becomes slow is demoted within a few operations and one that recovers comes back.
 *
 * <p><b>Bandwidth.</b> A transfer's time beyond one round trip is the time the link was busy
 * delivering it, but concurrent transfers share the link, so the bandwidth is not one request's
 * bytes over its time: it is the bytes of the transfers of a busy period (until no transfer is in
 * flight to the cloud) over the union of their busy intervals. One transfer alone measures {@code
 * bytes / (time - RTT)}; k equal ones that shared the link measure k times what each got. Parts of
 * 16 KiB on a 2 Mbit/s link spend 65 ms in transfer against a 315 ms round trip: before, every
 * request below 64 KiB was taken as a round trip, so a client reading in such parts never measured
 * its links (the default 100 Mbit/s stood) and each round-trip estimate swung with how many parts
 * shared the link (TraceBench: 0.34 to 1.14 s for a 315 ms cloud), and read-ahead and part
 * placement could not see that a holder's link was full. Requests from {@link #TRANSFER} bytes on
 * are transfers only: taken as round trips too, less their transfer at the measured bandwidth, they
 * inflated the round trip whenever they shared the link, which lowered their transfer time and
 * raised the bandwidth measured from them. Beside the EWMA the model keeps the last {@link #WINDOW}
 * RTT samples for percentiles (the probe reports median and p90).
 *
 * <p><b>Decay.</b> An estimate not refreshed for {@link #STALE_AFTER} drifts back toward its prior
 * (the builder's RTT hint, or the neutral default), halving its distance every {@link #HALF_LIFE}.
 * A data cloud demoted for being slow gets no data requests, but it still serves metadata (every
 * readM and writeM reaches all n clouds), which keeps its RTT fresh; its bandwidth estimate,
 * however, would otherwise never be re-measured. Decay makes it look as good as its prior again
 * after a while, so it is chosen once more, measured, and kept or demoted on evidence: old
 * estimates act like an occasional exploratory request.
 *
 * <p>Until a cloud has been measured its configured hint (or, without one, a neutral default with
 * the configured order as tie-break) stands in.
 *
 * <p><b>Queues.</b> Beside the estimates the model counts, per cloud, the requests and payload
 * bytes the client has in flight to it ({@link #sent}, {@link #ended}; {@link MeasuredCloud} calls
 * them around every put, part and get, a get counting the bytes its caller expects). {@link
 * #predictQueued} adds that queue to the prediction: RTT + (bytes in flight + my bytes) /
 * bandwidth, i.e. the time the link needs to deliver everything ahead of a request plus the request
 * itself, one round trip after it is sent. With fairness on, the requests waiting in the client's
 * fair queue for the cloud ({@link #waiting}, reported by the queue) are ahead too: their bytes
 * count as bytes in flight do. Uploads and downloads are counted together, as the one bandwidth
 * estimate measures both. It is an upper bound when the link is shared fairly (a flow already
 * part-way counts whole, and a small request does not wait for the whole of a large one), and exact
 * for a first-come first-served link: deliberately pessimistic about a busy cloud, which is what a
 * read that can go elsewhere wants. {@link #predict} is unchanged and still orders writes and
 * layouts: a write must reach f+1 clouds whatever their queues, and the layout chooser compares
 * steady-state costs.
 *
 * <p>Thread-safe: each estimate is updated under its own lock.
 */
public final class LatencyModel {
  /**
   * Requests of at least this size are faster than one round trip only if the round-trip estimate
   * is too high: they move it down.
   */
  static final long SMALL = 64 * 1024;

  /**
   * Requests of at least this size measure the link's bandwidth; below it a request is all round
   * trip and jitter.
   */
  static final long TRANSFER = 8 * 1024;

  /** Weight of the newest sample in the moving averages. */
  static final double ALPHA = 0.3;

  /** RTT samples kept per cloud for percentiles. */
  static final int WINDOW = 32;

  /** How long an estimate is trusted as measured before it starts drifting to its prior. */
  public static final Duration STALE_AFTER = Duration.ofMinutes(2);

  /** Half-life of the drift toward the prior once an estimate is stale. */
  public static final Duration HALF_LIFE = Duration.ofMinutes(2);

  private static final double DEFAULT_RTT_NANOS = Duration.ofMillis(100).toNanos();

  /** Assumed bandwidth before any large transfer was measured: 100 Mbit/s. */
  static final double DEFAULT_BYTES_PER_NANO = 100e6 / 8 / 1e9;

  private final Map<String, Estimate> estimates = new LinkedHashMap<>();
  private final Scheduler scheduler;

  private static final class Estimate {
    final int order;
    final double priorRtt;
    double rttNanos;
    double bytesPerNano = DEFAULT_BYTES_PER_NANO;
    long samples;
    long bandwidthSamples;
    long rttAt;
    long bandwidthAt;

    /**
     * The current busy period of the link: bytes transferred, the time the link was busy with them
     * (overlaps counted once), transfers, and the bandwidth estimate before it (0: none yet).
     */
    double periodBytes;

    double periodNanos;
    int periodTransfers;
    double periodBaseline;

    /** The busy intervals of the current period's transfers, merged. */
    final Intervals busy = new Intervals();

    final long[] window = new long[WINDOW];
    int windowCount;
    int windowNext;
    long requestsInFlight;
    long bytesInFlight;
    long requestsWaiting;
    long bytesWaiting;
    boolean smallRead;
    long smallReadAt;

    Estimate(int order, double rttNanos) {
      this.order = order;
      this.priorRtt = rttNanos;
      this.rttNanos = rttNanos;
    }
  }

  /** A union of intervals (at most {@link #WINDOW} added between clears). Not thread-safe. */
  static final class Intervals {
    private final List<double[]> merged = new ArrayList<>();

    /** Adds [{@code from}, {@code to}]; returns the length of the union. */
    double add(double from, double to) {
      double[] n = {from, to};
      List<double[]> out = new ArrayList<>();
      for (double[] i : merged) {
        if (i[1] < n[0] || i[0] > n[1]) {
          out.add(i);
        } else {
          n[0] = Math.min(n[0], i[0]);
          n[1] = Math.max(n[1], i[1]);
        }
      }
      out.add(n);
      merged.clear();
      merged.addAll(out);
      double total = 0;
      for (double[] i : merged) {
        total += i[1] - i[0];
      }
      return total;
    }

    void clear() {
      merged.clear();
    }
  }

  /** A snapshot of one cloud's estimates. */
  record Snapshot(
      String cloud,
      Duration rtt,
      Duration rttMedian,
      Duration rttP90,
      double bytesPerSecond,
      long rttSamples,
      long bandwidthSamples) {}

  public LatencyModel(Scheduler scheduler, List<Settings.CloudSetting> clouds) {
    this.scheduler = scheduler;
    int i = 0;
    for (Settings.CloudSetting c : clouds) {
      double rtt = c.expectedRtt() == null ? DEFAULT_RTT_NANOS : c.expectedRtt().toNanos();
      estimates.put(c.driver().id(), new Estimate(i++, rtt));
    }
  }

  Scheduler scheduler() {
    return scheduler;
  }

  /**
   * Records a successful request that moved {@code bytes} payload bytes in {@code nanos} (ending
   * now): a round-trip sample if it is small, a transfer of the cloud's link if it is not (see the
   * class comment, "Bandwidth").
   */
  public void record(String cloud, long bytes, long nanos) {
    Estimate e = estimates.get(cloud);
    if (e == null || nanos < 0) {
      return;
    }
    long now = scheduler.nanoTime();
    synchronized (e) {
      if (bytes < TRANSFER) {
        rttSample(e, nanos, now);
        return;
      }
      double rtt = rtt(e, now);
      double transfer = nanos - Math.min(rtt, medianRtt(e, rtt));
      if (transfer > 0) {
        transferSample(e, bytes, transfer, now);
      } else if (bytes >= SMALL) {
        // Faster than one RTT: the RTT estimate is too high; let it move down.
        e.rttNanos = (1 - ALPHA) * rtt + ALPHA * nanos;
        e.rttAt = now;
      }
    }
  }

  /**
   * The median of the recent round-trip samples ({@code otherwise} if none): a transfer's time
   * beyond it is its time on the link. Small requests that shared the link with transfers took
   * longer than a round trip, and the moving average follows them; the median does not, as long as
   * most round trips were not shared. Caller holds e's lock.
   */
  private static double medianRtt(Estimate e, double otherwise) {
    if (e.windowCount == 0) {
      return otherwise;
    }
    long[] w = Arrays.copyOf(e.window, e.windowCount);
    Arrays.sort(w);
    return percentile(w, 0.5);
  }

  /** Adds a round-trip sample. Caller holds e's lock. */
  private static void rttSample(Estimate e, long nanos, long now) {
    double current = rtt(e, now);
    e.rttNanos = e.samples == 0 ? nanos : (1 - ALPHA) * current + ALPHA * nanos;
    e.samples++;
    e.rttAt = now;
    e.window[e.windowNext] = nanos;
    e.windowNext = (e.windowNext + 1) % WINDOW;
    e.windowCount = Math.min(WINDOW, e.windowCount + 1);
  }

  /**
   * Adds a transfer of {@code bytes} that took the last {@code transfer} nanoseconds (its time
   * beyond one round trip) to the link's current busy period: the period's bandwidth is the bytes
   * transferred over the time the link was busy transferring them, concurrent transfers' busy times
   * overlapping and counted once. The estimate is the moving average of the periods' times per byte
   * (weight {@link #ALPHA}), the current period's counted as it grows. A period ends when no
   * transfer is in flight to the cloud (fewer than {@link #TRANSFER} bytes: the link went idle but
   * for round trips) or after {@link #WINDOW} transfers. Caller holds e's lock.
   */
  private static void transferSample(Estimate e, long bytes, double transfer, long now) {
    if (e.bandwidthSamples > 0 && now - e.bandwidthAt > STALE_AFTER.toNanos()) {
      // A stale estimate restarts from its decayed value.
      e.periodBaseline = bandwidth(e, now);
    }
    e.periodBytes += bytes;
    e.periodNanos = e.busy.add(now - transfer, now);
    e.periodTransfers++;
    if (e.periodNanos > 0) {
      double period = e.periodBytes / e.periodNanos;
      // The moving average is taken of time per byte (a weighted harmonic mean of the periods'
      // bandwidths): a transfer of a few KiB whose time beyond the round trip is mostly jitter
      // can measure ten times the link, and averaged as a bandwidth one such sample moved the
      // estimate without bound (PaperBench, 16 MB FAST writes on Table 1: a 2 Mbit/s link
      // estimated at 23 Mbit/s, writeDf hedges fired by the short prediction); as a time per byte
      // it can raise the estimate by at most 1 / (1 - ALPHA), 1.43 x.
      e.bytesPerNano =
          e.periodBaseline <= 0 ? period : 1 / ((1 - ALPHA) / e.periodBaseline + ALPHA / period);
      e.bandwidthSamples++;
      e.bandwidthAt = now;
    }
    boolean idle = e.bytesInFlight + e.bytesWaiting < TRANSFER;
    if (idle || e.periodTransfers >= WINDOW) {
      // The period ends: no transfer is in flight (one sent later starts a period of its own), or
      // the link has been busy for long enough to count as one sample.
      if (e.periodNanos > 0) {
        e.periodBaseline = e.bytesPerNano;
      }
      e.periodBytes = 0;
      e.periodNanos = 0;
      e.periodTransfers = 0;
      e.busy.clear();
    }
  }

  /** The RTT estimate at {@code now}, decayed toward the prior if stale. Caller holds e's lock. */
  private static double rtt(Estimate e, long now) {
    return decay(e.rttNanos, e.priorRtt, e.samples == 0 ? now : e.rttAt, now);
  }

  private static double bandwidth(Estimate e, long now) {
    return decay(
        e.bytesPerNano, DEFAULT_BYTES_PER_NANO, e.bandwidthSamples == 0 ? now : e.bandwidthAt, now);
  }

  private static double decay(double value, double prior, long at, long now) {
    long age = now - at - STALE_AFTER.toNanos();
    if (age <= 0) {
      return value;
    }
    double w = Math.pow(0.5, (double) age / HALF_LIFE.toNanos());
    return prior + (value - prior) * w;
  }

  /** Predicted completion time of a request moving {@code bytes} to or from {@code cloud}. */
  public Duration predict(String cloud, long bytes) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return Duration.ofMillis(100);
    }
    long now = scheduler.nanoTime();
    synchronized (e) {
      return Duration.ofNanos((long) (rtt(e, now) + bytes / bandwidth(e, now)));
    }
  }

  /**
   * Predicted completion of a request moving {@code bytes} to or from {@code cloud} sent now,
   * behind the bytes already in flight to it and waiting for it in the client's fair queue: RTT +
   * (bytes in flight + bytes waiting + {@code bytes}) / bandwidth. Equals {@link #predict} for an
   * idle cloud.
   */
  public Duration predictQueued(String cloud, long bytes) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return Duration.ofMillis(100);
    }
    long now = scheduler.nanoTime();
    synchronized (e) {
      return Duration.ofNanos(
          (long)
              (rtt(e, now)
                  + (e.bytesInFlight + e.bytesWaiting + Math.max(0, bytes)) / bandwidth(e, now)));
    }
  }

  /**
   * A request expected to move {@code bytes} was sent to {@code cloud}. Pair with {@link #ended}.
   */
  public void sent(String cloud, long bytes) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return;
    }
    synchronized (e) {
      e.requestsInFlight++;
      e.bytesInFlight += Math.max(0, bytes);
    }
  }

  /**
   * Requests and payload bytes waiting for {@code cloud} in the client's fair queue changed by
   * these amounts (the queue reports each request queued, dispatched or withdrawn): they are ahead
   * of any request sent now, as bytes in flight are.
   */
  public void waiting(String cloud, long requests, long bytes) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return;
    }
    synchronized (e) {
      e.requestsWaiting += requests;
      e.bytesWaiting += bytes;
    }
  }

  /** Requests waiting for {@code cloud} in the client's fair queue now. */
  public long requestsWaiting(String cloud) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return 0;
    }
    synchronized (e) {
      return e.requestsWaiting;
    }
  }

  /** A request {@link #sent} with {@code bytes} ended (answered, failed or cancelled). */
  public void ended(String cloud, long bytes) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return;
    }
    synchronized (e) {
      e.requestsInFlight--;
      e.bytesInFlight -= Math.max(0, bytes);
    }
  }

  /** Requests the client has in flight to {@code cloud} now (0 for an unknown cloud). */
  public long requestsInFlight(String cloud) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return 0;
    }
    synchronized (e) {
      return e.requestsInFlight;
    }
  }

  /** Payload bytes the client has in flight to or from {@code cloud} now. */
  public long bytesInFlight(String cloud) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return 0;
    }
    synchronized (e) {
      return e.bytesInFlight;
    }
  }

  /**
   * Payload bytes ahead of a request sent to {@code cloud} now: those in flight to or from it and
   * those waiting for it in the client's fair queue (what {@link #predictQueued} counts).
   */
  public long bytesQueued(String cloud) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return 0;
    }
    synchronized (e) {
      return e.bytesInFlight + e.bytesWaiting;
    }
  }

  /** A small read was routed to {@code cloud} now ({@link ReadRouting}). */
  void smallReadRouted(String cloud) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return;
    }
    long now = scheduler.nanoTime();
    synchronized (e) {
      e.smallRead = true;
      e.smallReadAt = now;
    }
  }

  /** Whether a small read was routed to {@code cloud} within the last {@code window}. */
  boolean smallReadWithin(String cloud, Duration window) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return false;
    }
    long now = scheduler.nanoTime();
    synchronized (e) {
      return e.smallRead && now - e.smallReadAt < window.toNanos();
    }
  }

  /** The configured position of {@code cloud} (tie-break), or a large number if unknown. */
  int order(String cloud) {
    Estimate e = estimates.get(cloud);
    return e != null ? e.order : 1 << 20;
  }

  /** The bandwidth estimate of {@code cloud} in bytes per second (decayed if stale). */
  public double bytesPerSecond(String cloud) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return DEFAULT_BYTES_PER_NANO * 1e9;
    }
    long now = scheduler.nanoTime();
    synchronized (e) {
      return bandwidth(e, now) * 1e9;
    }
  }

  /** The current estimates of {@code cloud}. */
  Snapshot snapshot(String cloud) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      throw new IllegalArgumentException("unknown cloud " + cloud);
    }
    long now = scheduler.nanoTime();
    synchronized (e) {
      long[] w = Arrays.copyOf(e.window, e.windowCount);
      Arrays.sort(w);
      double rtt = rtt(e, now);
      return new Snapshot(
          cloud,
          Duration.ofNanos((long) rtt),
          Duration.ofNanos(w.length == 0 ? (long) rtt : percentile(w, 0.5)),
          Duration.ofNanos(w.length == 0 ? (long) rtt : percentile(w, 0.9)),
          bandwidth(e, now) * 1e9,
          e.samples,
          e.bandwidthSamples);
    }
  }

  /** Nearest-rank percentile of sorted samples. */
  public static long percentile(long[] sorted, double p) {
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** The given clouds ordered by predicted completion for {@code bytes}, fastest first. */
  public List<String> fastestFirst(List<String> clouds, long bytes) {
    // One prediction per cloud, not one per comparison: this runs on every write.
    int n = clouds.size();
    Integer[] index = new Integer[n];
    long[] predicted = new long[n];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      String c = clouds.get(i);
      index[i] = i;
      predicted[i] = predict(c, bytes).toNanos();
      Estimate e = estimates.get(c);
      order[i] = e != null ? e.order : 1 << 20;
    }
    Arrays.sort(
        index,
        (a, b) ->
            predicted[a] != predicted[b]
                ? Long.compare(predicted[a], predicted[b])
                : Integer.compare(order[a], order[b]));
    List<String> out = new ArrayList<>(n);
    for (Integer i : index) {
      out.add(clouds.get(i));
    }
    return out;
  }
}
