package io.rafestore.bench.fairness;

import io.rafestore.Fairness;
import io.rafestore.RafeStore;
import java.util.List;
import java.util.Locale;

/**
 * How InterferenceBench gives its tenants to the client: fair scheduling on or off, each tenant's
 * share in the builder. Stateless.
 */
final class Tenancy {
  private Tenancy() {}

  /**
   * The fairness setting of "on": {@link Fairness#on()} with the client's requests in flight per
   * cloud bounded as the clouds are ({@code --max-concurrent}), so that the queue forms in the
   * client's fair queue and not in the cloud's first-in-first-out one; {@code --tenant-bytes} per
   * tenant per cloud if given; its other defaults.
   */
  static Fairness on(InterferenceBench.Params p) {
    Fairness on = Fairness.on().withCloudConcurrency(p.maxConcurrent());
    return p.tenantBytes() > 0 ? on.withTenantBytesInFlight(p.tenantBytes()) : on;
  }

  /** Fair scheduling on or off, with each tenant's share. */
  static void configure(
      RafeStore.Builder b,
      boolean fair,
      List<InterferenceBench.Tenant> tenants,
      InterferenceBench.Params p) {
    b.fairness(fair ? on(p) : Fairness.off());
    for (InterferenceBench.Tenant t : tenants) {
      b.tenant(t.id(), t.share());
    }
  }

  /**
   * The reservation, in cost units per second per cloud, that gives a small reader {@code
   * readsPerSecond}: a reservation counts each cloud's requests, and the cloud a read fetches its
   * value from serves two of its requests (the log of readM and the value), each of about the cost
   * of a small object, so that cloud needs twice the read rate in requests.
   */
  static double reservationUnits(double readsPerSecond, InterferenceBench.Params p) {
    return readsPerSecond * 2 * on(p).cost(p.smallBytes());
  }

  /** What "fairness on" means, for the report. */
  static String describeOn(InterferenceBench.Params p) {
    Fairness f = on(p);
    return String.format(
        Locale.ROOT,
        "Fairness.on() with at most %d requests in flight per cloud (as many as the clouds serve at"
            + " once), %d MiB per cloud, %.2f MiB per tenant per cloud, cost unit %d KiB, requests"
            + " of %d KiB or more in at most %d of a cloud's %d places; a reservation of r reads per"
            + " second is given as 2 r cost units per second per cloud (the cloud a read fetches"
            + " its value from serves two of its requests: the log and the value)",
        f.cloudConcurrency(),
        f.cloudBytesInFlight() >> 20,
        f.tenantBytesInFlight() / 1048576.0,
        f.costUnitBytes() >> 10,
        f.largeRequestBytes() >> 10,
        f.largeRequestPlaces(),
        f.cloudConcurrency());
  }
}
