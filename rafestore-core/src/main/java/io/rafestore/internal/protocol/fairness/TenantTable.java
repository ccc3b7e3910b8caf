package io.rafestore.internal.protocol.fairness;

import io.rafestore.CloudRequest;
import io.rafestore.TenantStats;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-tenant counts: operations, failures, bytes, requests, cost units served, queue wait, and a
 * bounded latency histogram of logarithmic buckets (4 per doubling from 1 microsecond to about 2
 * days: 160 buckets, so a percentile is the upper edge of its bucket, at most 19 % above the true
 * value). At most {@link #MAX_TENANTS} tenants are tracked apart; further tenants are counted
 * together under {@link #OTHER}. Thread-safe: adders and atomic arrays, no lock.
 */
public final class TenantTable {
  /** Most tenants tracked apart. */
  public static final int MAX_TENANTS = 4096;

  /** The row of tenants beyond {@link #MAX_TENANTS}. */
  public static final String OTHER = "(other)";

  static final int BUCKETS = 160;

  private final ConcurrentHashMap<String, Row> rows = new ConcurrentHashMap<>();

  /** The row of {@code tenant} (made on first use; {@link #OTHER}'s beyond the bound). */
  Row row(String tenant) {
    Row r = rows.get(tenant);
    if (r != null) {
      return r;
    }
    if (rows.size() >= MAX_TENANTS) {
      return rows.computeIfAbsent(OTHER, t -> new Row());
    }
    return rows.computeIfAbsent(tenant, t -> new Row());
  }

  /** A request of {@code request.tenant()} ended, costing {@code cost} units. */
  public void request(CloudRequest request, double cost) {
    Row r = row(request.tenant());
    r.requests.increment();
    r.cost.add(cost);
    if (request.kind() == CloudRequest.Kind.GET) {
      r.bytesRead.add(request.bytes());
    } else if (request.kind() == CloudRequest.Kind.PUT) {
      r.bytesWritten.add(request.bytes());
    }
  }

  /** An operation of {@code tenant} ended after {@code nanos}. */
  public void operation(String tenant, long nanos, boolean ok) {
    Row r = row(tenant);
    r.operations.increment();
    if (!ok) {
      r.failures.increment();
    }
    r.latency.incrementAndGet(bucket(nanos));
  }

  /** A request of {@code tenant} waited {@code nanos} in a fair queue. */
  public void waited(String tenant, long nanos) {
    row(tenant).queueWait.add(nanos);
  }

  /** The bucket of a latency: 0 up to 1 microsecond, then 4 per doubling. */
  static int bucket(long nanos) {
    if (nanos <= 1000) {
      return 0;
    }
    double b = Math.ceil(4 * (Math.log(nanos / 1000.0) / Math.log(2)));
    return (int) Math.min(BUCKETS - 1, Math.max(0, b));
  }

  /** The upper edge of bucket {@code i}, in nanoseconds. */
  static long upperEdge(int i) {
    return (long) Math.ceil(1000 * Math.pow(2, i / 4.0));
  }

  /** Everyone's figures, by tenant in name order. */
  public Map<String, TenantStats> snapshot() {
    Map<String, Row> sorted = new TreeMap<>(rows);
    double total = 0;
    for (Row r : sorted.values()) {
      total += r.cost.sum();
    }
    Map<String, TenantStats> out = new LinkedHashMap<>();
    for (Map.Entry<String, Row> e : sorted.entrySet()) {
      Row r = e.getValue();
      long[] counts = new long[BUCKETS];
      long n = 0;
      for (int i = 0; i < BUCKETS; i++) {
        counts[i] = r.latency.get(i);
        n += counts[i];
      }
      double cost = r.cost.sum();
      out.put(
          e.getKey(),
          new TenantStats(
              e.getKey(),
              r.operations.sum(),
              r.failures.sum(),
              r.bytesRead.sum(),
              r.bytesWritten.sum(),
              percentile(counts, n, 0.50),
              percentile(counts, n, 0.90),
              percentile(counts, n, 0.99),
              r.requests.sum(),
              cost,
              total > 0 ? cost / total : 0,
              Duration.ofNanos(r.queueWait.sum())));
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  private static Duration percentile(long[] counts, long n, double q) {
    if (n == 0) {
      return Duration.ZERO;
    }
    long rank = (long) Math.ceil(q * n);
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return Duration.ofNanos(upperEdge(i));
      }
    }
    return Duration.ofNanos(upperEdge(counts.length - 1));
  }

  static final class Row {
    final LongAdder operations = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder bytesRead = new LongAdder();
    final LongAdder bytesWritten = new LongAdder();
    final LongAdder requests = new LongAdder();
    final LongAdder queueWait = new LongAdder();
    final DoubleAdder cost = new DoubleAdder();
    final AtomicLongArray latency = new AtomicLongArray(BUCKETS);
  }
}
