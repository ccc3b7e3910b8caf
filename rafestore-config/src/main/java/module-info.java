/** Reads a RafeStore configuration file (clouds, keys, settings) into a builder. */
module io.rafestore.config {
  exports io.rafestore.config;

  requires transitive io.rafestore;
}
