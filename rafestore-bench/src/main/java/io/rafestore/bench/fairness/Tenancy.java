package io.rafestore.bench.fairness;

import io.rafestore.RafeStore;
import java.util.List;

/**
 * How InterferenceBench gives its tenants to the client: their shares in the builder, fair
 * scheduling on or off, and each tenant's view. Stateless.
 */
final class Tenancy {
  private Tenancy() {}

  /** Fair scheduling on or off, with each tenant's share. */
  static void configure(
      RafeStore.Builder b,
      boolean fair,
      List<InterferenceBench.Tenant> tenants,
      InterferenceBench.Params p) {
    // Not available in this build: every run is a run with fairness off.
  }

  /** The client as seen by {@code tenant}. */
  static RafeStore view(RafeStore store, String tenant) {
    return store;
  }

  /** What "fairness on" means in this build, for the report. */
  static String describeOn(InterferenceBench.Params p) {
    return "not available in this build (runs marked on are off)";
  }
}
