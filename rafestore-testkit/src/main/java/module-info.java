/** The contract test suite every RafeStore driver runs against its emulator. */
module io.rafestore.testkit {
  exports io.rafestore.testkit;

  requires transitive io.rafestore;
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;
}
