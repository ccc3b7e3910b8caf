package io.rafestore.spi;

import java.util.function.Supplier;

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

  /**
   * Checks {@code spec} as {@link #create} would and returns what creates the driver, so a caller
   * can report a wrong setting at once and build the SDK's client later, on another thread: the
   * client's construction is mostly class loading and initialisation (a few hundred milliseconds
   * for a cloud SDK), which a caller such as a short command wants to overlap with other work.
   *
   * <p>A provider that overrides it checks here every setting it can check without building the
   * client (and reads what it must, such as credentials files); the returned supplier may then
   * still throw {@link IllegalArgumentException}, naming the field, for what only the SDK finds out
   * (a malformed connection string, say). The supplier is called at most once. The default creates
   * the driver here, so every error is thrown here.
   *
   * @throws IllegalArgumentException as {@link #create}
   */
  default Supplier<CloudDriver> prepare(CloudSpec spec) {
    CloudDriver driver = create(spec);
    return () -> driver;
  }
}
