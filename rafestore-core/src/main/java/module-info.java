/**
 * RafeStore: Byzantine fault-tolerant storage over several clouds.
 *
 * <p>The API is {@code io.rafestore} (the store, its builder, reports and exceptions); drivers are
 * written against {@code io.rafestore.spi} and its helpers in {@code io.rafestore.spi.support};
 * {@code io.rafestore.clouds} holds the in-memory and directory clouds, the fault, Byzantine and
 * WAN decorators and driver discovery. Everything under {@code io.rafestore.internal} is the
 * implementation and is not exported. Driver modules provide {@link
 * io.rafestore.spi.DriverProvider}s that {@link io.rafestore.clouds.Drivers} finds through {@link
 * java.util.ServiceLoader}.
 */
module io.rafestore {
  exports io.rafestore;
  exports io.rafestore.spi;
  exports io.rafestore.spi.support;
  exports io.rafestore.clouds;

  // JFR events of operations, phases, faults and requests (design.md, "Observability").
  requires jdk.jfr;

  // The default Ed25519 of signed metadata (internal.codec.Signatures; design.md section 4). Not
  // transitive: no BouncyCastle type is in the API.
  requires org.bouncycastle.provider;

  uses io.rafestore.spi.DriverProvider;

  provides io.rafestore.spi.DriverProvider with
      io.rafestore.internal.providers.MemoryDriverProvider,
      io.rafestore.internal.providers.DirectoryDriverProvider;
}
