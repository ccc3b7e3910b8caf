package io.rafestore;

/**
 * What a tenant is entitled to at each cloud when {@link Fairness#on()} schedules requests
 * (mClock's three controls). Shares are counted in cost units: a request costs {@code 1 + bytes /
 * }{@link Fairness#costUnitBytes()} units, so they count requests and bytes.
 *
 * <ul>
 *   <li>{@code weight}: the tenant's proportional share of a cloud beyond reservations, relative
 *       to the other backlogged tenants' weights; {@code > 0} and finite. Default 1.
 *   <li>{@code reservationOpsPerSecond}: cost units per second per cloud the tenant gets before any
 *       proportional sharing, while the cloud has capacity; {@code 0} means no reservation.
 *   <li>{@code limitOpsPerSecond}: most cost units per second per cloud the tenant gets even when
 *       the cloud is otherwise idle; {@code 0} or {@link Double#POSITIVE_INFINITY} means no limit.
 *       A finite limit must be at least the reservation.
 * </ul>
 *
 * @param weight proportional share, {@code > 0}
 * @param reservationOpsPerSecond cost units per second reserved per cloud, {@code >= 0}
 * @param limitOpsPerSecond cost units per second at most per cloud, {@code >= 0} (0: none)
 */
public record TenantShare(
    double weight, double reservationOpsPerSecond, double limitOpsPerSecond) {

  /** Weight 1, no reservation, no limit: what a tenant without a share configured gets. */
  public static final TenantShare DEFAULT = new TenantShare(1, 0, 0);

  /** Most a weight may be (so that tag arithmetic stays exact enough). */
  public static final double MAX_WEIGHT = 1_000_000;

  public TenantShare {
    if (!(weight > 0) || weight > MAX_WEIGHT || Double.isNaN(weight)) {
      throw new IllegalArgumentException(
          "tenant weight must be > 0 and <= " + (long) MAX_WEIGHT + ", was " + weight);
    }
    if (!(reservationOpsPerSecond >= 0) || Double.isInfinite(reservationOpsPerSecond)) {
      throw new IllegalArgumentException(
          "tenant reservation must be finite and >= 0 (0: none), was " + reservationOpsPerSecond);
    }
    if (!(limitOpsPerSecond >= 0)) {
      throw new IllegalArgumentException(
          "tenant limit must be >= 0 (0 or infinity: none), was " + limitOpsPerSecond);
    }
    if (limitOpsPerSecond > 0
        && !Double.isInfinite(limitOpsPerSecond)
        && limitOpsPerSecond < reservationOpsPerSecond) {
      throw new IllegalArgumentException(
          "tenant limit "
              + limitOpsPerSecond
              + " is below its reservation "
              + reservationOpsPerSecond
              + " (a limit must be at least the reservation, or 0 for none)");
    }
  }

  /** A share of {@code weight}, without reservation or limit. */
  public static TenantShare weight(double weight) {
    return new TenantShare(weight, 0, 0);
  }

  /** This share with {@code opsPerSecond} cost units per second reserved (0: none). */
  public TenantShare withReservation(double opsPerSecond) {
    return new TenantShare(weight, opsPerSecond, limitOpsPerSecond);
  }

  /** This share with at most {@code opsPerSecond} cost units per second (0 or infinity: none). */
  public TenantShare withLimit(double opsPerSecond) {
    return new TenantShare(weight, reservationOpsPerSecond, opsPerSecond);
  }

  /** This share with another weight. */
  public TenantShare withWeight(double weight) {
    return new TenantShare(weight, reservationOpsPerSecond, limitOpsPerSecond);
  }

  /** Whether a reservation is set. */
  public boolean hasReservation() {
    return reservationOpsPerSecond > 0;
  }

  /** Whether a limit is set. */
  public boolean hasLimit() {
    return limitOpsPerSecond > 0 && !Double.isInfinite(limitOpsPerSecond);
  }
}
