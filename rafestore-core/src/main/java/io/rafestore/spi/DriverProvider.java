package io.rafestore.spi;

/**
 * Makes {@link CloudDriver}s of one type from a {@link CloudSpec}. Found with {@link
 * java.util.ServiceLoader}: a driver module lists its provider in {@code
 * META-INF/services/io.rafestore.spi.DriverProvider}. Implementations are stateless and
 * thread-safe, with a public no-argument constructor.
 */
public interface DriverProvider {
  /** The type name a spec uses to pick this provider, such as {@code s3}. */
  String type();

  /**
   * A new driver for {@code spec}.
   *
   * @throws IllegalArgumentException if a field the type needs is missing or invalid; the message
   *     names the field
   */
  CloudDriver create(CloudSpec spec);
}
