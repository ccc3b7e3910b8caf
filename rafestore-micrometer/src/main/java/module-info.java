/**
 * Micrometer meters for RafeStore: {@link io.rafestore.micrometer.RafeStoreMetrics}, a {@code
 * MeterBinder} fed by the client's listener. Optional: core depends on no metrics library.
 */
// micrometer-core is an automatic module (Automatic-Module-Name micrometer.core); our API names
// its types (MeterBinder, MeterRegistry, Tag), so it is required transitively all the same.
@SuppressWarnings("requires-transitive-automatic")
module io.rafestore.micrometer {
  exports io.rafestore.micrometer;

  requires transitive io.rafestore;
  requires transitive micrometer.core;
}
