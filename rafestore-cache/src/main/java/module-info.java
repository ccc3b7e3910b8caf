/**
 * The verified value cache of RafeStore's read tier: {@link io.rafestore.cache.CaffeineValueCache},
 * an implementation of core's {@link io.rafestore.ValueCache} on Caffeine (W-TinyLFU eviction,
 * bounded by bytes), with an optional directory that survives a restart.
 */
module io.rafestore.cache {
  exports io.rafestore.cache;

  requires transitive io.rafestore;
  requires com.github.benmanes.caffeine;
}
