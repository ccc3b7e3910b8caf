/** Reads a RafeStore configuration file (clouds, keys, settings) into a builder. */
module io.rafestore.config {
  exports io.rafestore.config;

  requires transitive io.rafestore;

  // StoreConfig.knownDriverTypes() asks ServiceLoader itself, which a named module may only do
  // for a service it declares it uses.
  uses io.rafestore.spi.DriverProvider;
}
