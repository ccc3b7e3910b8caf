package io.rafestore;

/**
 * Whether and how the client schedules its requests to each cloud fairly among tenants ({@link
 * RafeStore#forTenant}, {@link RafeStore.Builder#tenant}). Immutable.
 *
 * <p>{@link #off()}, the default, sends every request to its cloud at once, exactly as a client
 * without tenants does: no queue, no wrapper, no cost. {@link #on()} puts a fair queue in front of
 * each cloud (design.md section 6, "Tenants and fair scheduling"): at most {@link
 * #cloudConcurrency()} requests and {@link #cloudBytesInFlight()} bytes in flight per cloud, at
 * most {@link #tenantBytesInFlight()} bytes of one tenant per cloud, and among the tenants waiting,
 * reservations first, then proportional shares by weight under each tenant's limit, counted in cost
 * units of {@code 1 + bytes / costUnitBytes}. A single request larger than a byte bound still goes
 * when nothing else of its tenant is in flight (so nothing starves).
 *
 * <p><b>Room for small requests.</b> A request is not preempted once sent, and a large transfer on
 * a slow link holds its place for seconds: were every place taken by large transfers, a small read
 * would wait for one of them to end. So large requests (at least {@link #largeRequestBytes()}
 * payload bytes, 256 KiB by default) take at most {@link #largeRequestShare()} (half, by default;
 * at least one) of a cloud's {@link #cloudConcurrency()} places; the rest are always open to small
 * ones (metadata, small values). Half costs a bulk transfer little: a few flows already fill a
 * link's bandwidth, which the transfers share.
 */
public final class Fairness {
  private static final Fairness OFF =
      new Fairness(false, 16, 64L << 20, 16L << 20, 64L << 10, 256L << 10, 0.5);

  private final boolean enabled;
  private final int cloudConcurrency;
  private final long cloudBytesInFlight;
  private final long tenantBytesInFlight;
  private final long costUnitBytes;
  private final long largeRequestBytes;
  private final double largeRequestShare;

  private Fairness(
      boolean enabled,
      int cloudConcurrency,
      long cloudBytesInFlight,
      long tenantBytesInFlight,
      long costUnitBytes,
      long largeRequestBytes,
      double largeRequestShare) {
    if (cloudConcurrency < 1 || cloudConcurrency > 65_536) {
      throw new IllegalArgumentException(
          "fairness cloudConcurrency must be in [1, 65536], was " + cloudConcurrency);
    }
    if (cloudBytesInFlight < 1) {
      throw new IllegalArgumentException(
          "fairness cloudBytesInFlight must be >= 1, was " + cloudBytesInFlight);
    }
    if (tenantBytesInFlight < 1) {
      throw new IllegalArgumentException(
          "fairness tenantBytesInFlight must be >= 1, was " + tenantBytesInFlight);
    }
    if (costUnitBytes < 1) {
      throw new IllegalArgumentException(
          "fairness costUnitBytes must be >= 1, was " + costUnitBytes);
    }
    if (largeRequestBytes < 1) {
      throw new IllegalArgumentException(
          "fairness largeRequestBytes must be >= 1, was " + largeRequestBytes);
    }
    if (!(largeRequestShare > 0 && largeRequestShare <= 1)) {
      throw new IllegalArgumentException(
          "fairness largeRequestShare must be in (0, 1], was " + largeRequestShare);
    }
    this.enabled = enabled;
    this.largeRequestBytes = largeRequestBytes;
    this.largeRequestShare = largeRequestShare;
    this.cloudConcurrency = cloudConcurrency;
    this.cloudBytesInFlight = cloudBytesInFlight;
    this.tenantBytesInFlight = tenantBytesInFlight;
    this.costUnitBytes = costUnitBytes;
  }

  /** No scheduling: every request goes to its cloud at once (the default). */
  public static Fairness off() {
    return OFF;
  }

  /**
   * Fair scheduling with the defaults: 16 requests and 64 MiB in flight per cloud, 16 MiB per
   * tenant per cloud, a cost unit of 64 KiB, requests of 256 KiB or more in at most half of a
   * cloud's places.
   */
  public static Fairness on() {
    return new Fairness(true, 16, 64L << 20, 16L << 20, 64L << 10, 256L << 10, 0.5);
  }

  public boolean enabled() {
    return enabled;
  }

  /** Most requests dispatched to one cloud at a time (default 16). */
  public int cloudConcurrency() {
    return cloudConcurrency;
  }

  /** Most payload bytes in flight to or from one cloud (default 64 MiB). */
  public long cloudBytesInFlight() {
    return cloudBytesInFlight;
  }

  /** Most payload bytes of one tenant in flight to or from one cloud (default 16 MiB). */
  public long tenantBytesInFlight() {
    return tenantBytesInFlight;
  }

  /** The bytes of one cost unit: a request costs {@code 1 + bytes / costUnitBytes} (64 KiB). */
  public long costUnitBytes() {
    return costUnitBytes;
  }

  /** This setting with at most {@code requests} dispatched per cloud, in [1, 65536]. */
  public Fairness withCloudConcurrency(int requests) {
    return new Fairness(
        enabled,
        requests,
        cloudBytesInFlight,
        tenantBytesInFlight,
        costUnitBytes,
        largeRequestBytes,
        largeRequestShare);
  }

  /** This setting with at most {@code bytes} in flight per cloud, {@code >= 1}. */
  public Fairness withCloudBytesInFlight(long bytes) {
    return new Fairness(
        enabled,
        cloudConcurrency,
        bytes,
        tenantBytesInFlight,
        costUnitBytes,
        largeRequestBytes,
        largeRequestShare);
  }

  /** This setting with at most {@code bytes} of one tenant in flight per cloud, {@code >= 1}. */
  public Fairness withTenantBytesInFlight(long bytes) {
    return new Fairness(
        enabled,
        cloudConcurrency,
        cloudBytesInFlight,
        bytes,
        costUnitBytes,
        largeRequestBytes,
        largeRequestShare);
  }

  /** This setting with a cost unit of {@code bytes}, {@code >= 1}. */
  public Fairness withCostUnitBytes(long bytes) {
    return new Fairness(
        enabled,
        cloudConcurrency,
        cloudBytesInFlight,
        tenantBytesInFlight,
        bytes,
        largeRequestBytes,
        largeRequestShare);
  }

  /** Payload bytes from which a request is large (default 256 KiB). */
  public long largeRequestBytes() {
    return largeRequestBytes;
  }

  /** The share of a cloud's places large requests may take (default 0.5). */
  public double largeRequestShare() {
    return largeRequestShare;
  }

  /** Most large requests in flight to one cloud: the share of its places, at least one. */
  public int largeRequestPlaces() {
    return Math.max(1, (int) Math.floor(cloudConcurrency * largeRequestShare));
  }

  /**
   * This setting with requests of at least {@code bytes} ({@code >= 1}) counted large, taking at
   * most {@code share} (in (0, 1]; 1: no room kept for small ones) of a cloud's places.
   */
  public Fairness withLargeRequests(long bytes, double share) {
    return new Fairness(
        enabled,
        cloudConcurrency,
        cloudBytesInFlight,
        tenantBytesInFlight,
        costUnitBytes,
        bytes,
        share);
  }

  /** The cost of a request of {@code bytes} payload bytes, in units. */
  public double cost(long bytes) {
    return 1 + (double) Math.max(0, bytes) / costUnitBytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fairness other
        && enabled == other.enabled
        && cloudConcurrency == other.cloudConcurrency
        && cloudBytesInFlight == other.cloudBytesInFlight
        && tenantBytesInFlight == other.tenantBytesInFlight
        && costUnitBytes == other.costUnitBytes
        && largeRequestBytes == other.largeRequestBytes
        && largeRequestShare == other.largeRequestShare;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(
        enabled,
        cloudConcurrency,
        cloudBytesInFlight,
        tenantBytesInFlight,
        costUnitBytes,
        largeRequestBytes,
        largeRequestShare);
  }

  @Override
  public String toString() {
    return enabled
        ? "Fairness.on(cloudConcurrency="
            + cloudConcurrency
            + ", cloudBytesInFlight="
            + cloudBytesInFlight
            + ", tenantBytesInFlight="
            + tenantBytesInFlight
            + ", costUnitBytes="
            + costUnitBytes
            + ", largeRequestBytes="
            + largeRequestBytes
            + ", largeRequestShare="
            + largeRequestShare
            + ")"
        : "Fairness.off()";
  }
}
