package io.rafestore.internal.protocol;

import io.rafestore.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-cloud estimates of round-trip time and bandwidth, updated by every successful request, used
 * to order data clouds (fastest predicted completion first) and to evaluate Condition 1.
 *
 * <p>Requests of fewer than {@link #SMALL} bytes update the RTT estimate; larger ones update the
 * bandwidth estimate from the time beyond one RTT. Both are exponentially weighted moving averages,
 * so a cloud that becomes slow is demoted within a few operations and one that recovers comes back.
 * Until a cloud has been measured its configured hint (or, without one, a neutral default with the
 * configured order as tie-break) stands in.
 *
 * <p>Thread-safe: each estimate is updated under its own lock.
 */
final class LatencyModel {
  /** Requests below this size measure round-trip time rather than bandwidth. */
  static final long SMALL = 64 * 1024;

  private static final double ALPHA = 0.3;
  private static final double DEFAULT_RTT_NANOS = Duration.ofMillis(100).toNanos();

  /** Assumed bandwidth before any large transfer was measured: 100 Mbit/s. */
  private static final double DEFAULT_BYTES_PER_NANO = 100e6 / 8 / 1e9;

  private final Map<String, Estimate> estimates = new LinkedHashMap<>();
  private final Scheduler scheduler;

  private static final class Estimate {
    final int order;
    double rttNanos;
    double bytesPerNano = DEFAULT_BYTES_PER_NANO;
    long samples;

    Estimate(int order, double rttNanos) {
      this.order = order;
      this.rttNanos = rttNanos;
    }
  }

  LatencyModel(Scheduler scheduler, List<Settings.CloudSetting> clouds) {
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

  /** Records a successful request that moved {@code bytes} payload bytes in {@code nanos}. */
  void record(String cloud, long bytes, long nanos) {
    Estimate e = estimates.get(cloud);
    if (e == null || nanos < 0) {
      return;
    }
    synchronized (e) {
      if (bytes < SMALL) {
        e.rttNanos = e.samples == 0 ? nanos : (1 - ALPHA) * e.rttNanos + ALPHA * nanos;
        e.samples++;
      } else {
        double transfer = nanos - e.rttNanos;
        if (transfer > 0) {
          double bw = bytes / transfer;
          e.bytesPerNano = (1 - ALPHA) * e.bytesPerNano + ALPHA * bw;
        } else {
          // Faster than one RTT: the RTT estimate is too high; let it move down.
          e.rttNanos = (1 - ALPHA) * e.rttNanos + ALPHA * nanos;
        }
      }
    }
  }

  /** Predicted completion time of a request moving {@code bytes} to or from {@code cloud}. */
  Duration predict(String cloud, long bytes) {
    Estimate e = estimates.get(cloud);
    if (e == null) {
      return Duration.ofMillis(100);
    }
    synchronized (e) {
      return Duration.ofNanos((long) (e.rttNanos + bytes / e.bytesPerNano));
    }
  }

  /** The given clouds ordered by predicted completion for {@code bytes}, fastest first. */
  List<String> fastestFirst(List<String> clouds, long bytes) {
    List<String> out = new ArrayList<>(clouds);
    out.sort(
        Comparator.comparing((String c) -> predict(c, bytes))
            .thenComparingInt(c -> estimates.containsKey(c) ? estimates.get(c).order : 1 << 20));
    return out;
  }
}
