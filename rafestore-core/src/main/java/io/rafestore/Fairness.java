package io.rafestore;

/**
 * Whether and how the client schedules its requests to each cloud fairly among tenants ({@link
 * RafeStore#forTenant}, {@link RafeStore.Builder#tenant}). Immutable.
 *
 * <p>{@link #off()}, the default, sends every request to its cloud at once, exactly as a client
 * without tenants does: no queue, no wrapper, no cost. {@link #on()} puts a fair queue in front of
 * each cloud (design.md section 6, "Tenants and fair scheduling"): at most {@link
 * #cloudConcurrency()} requests and {@link #cloudBytesInFlight()} bytes in flight per cloud, at most
 * {@link #tenantBytesInFlight()} bytes of one tenant per cloud, and among the tenants waiting,
 * reservations first, then proportional shares by weight under each tenant's limit, counted in cost
 * units of {@code 1 + bytes / costUnitBytes}. A single request larger than a byte bound still goes
 * when nothing else of its tenant is in flight (so nothing starves).
 */
public final class Fairness {
  private static final Fairness OFF = new Fairness(false, 16, 64L << 20, 16L << 20, 64L << 10);

  private final boolean enabled;
  private final int cloudConcurrency;
  private final long cloudBytesInFlight;
  private final long tenantBytesInFlight;
  private final long costUnitBytes;

  private Fairness(
      boolean enabled,
      int cloudConcurrency,
      long cloudBytesInFlight,
      long tenantBytesInFlight,
      long costUnitBytes) {
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
    this.enabled = enabled;
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
   * tenant per cloud, a cost unit of 64 KiB.
   */
  public static Fairness on() {
    return new Fairness(true, 16, 64L << 20, 16L << 20, 64L << 10);
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
        enabled, requests, cloudBytesInFlight, tenantBytesInFlight, costUnitBytes);
  }

  /** This setting with at most {@code bytes} in flight per cloud, {@code >= 1}. */
  public Fairness withCloudBytesInFlight(long bytes) {
    return new Fairness(enabled, cloudConcurrency, bytes, tenantBytesInFlight, costUnitBytes);
  }

  /** This setting with at most {@code bytes} of one tenant in flight per cloud, {@code >= 1}. */
  public Fairness withTenantBytesInFlight(long bytes) {
    return new Fairness(enabled, cloudConcurrency, cloudBytesInFlight, bytes, costUnitBytes);
  }

  /** This setting with a cost unit of {@code bytes}, {@code >= 1}. */
  public Fairness withCostUnitBytes(long bytes) {
    return new Fairness(
        enabled, cloudConcurrency, cloudBytesInFlight, tenantBytesInFlight, bytes);
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
        && costUnitBytes == other.costUnitBytes;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(
        enabled, cloudConcurrency, cloudBytesInFlight, tenantBytesInFlight, costUnitBytes);
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
            + ")"
        : "Fairness.off()";
  }
}
