package io.rafestore.drivers.redis;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Type {@code redis}. {@code endpoint}: {@code redis://host:port[/db]} (required); {@code bucket}:
 * the key prefix (default {@code rafestore/}); {@code credentialsRef}: the AUTH password (for
 * example {@code env:REDIS_PASSWORD}); options {@code maxConnections}, {@code connectTimeoutMs},
 * {@code readTimeoutMs}.
 */
public final class RedisDriverProvider implements DriverProvider {
  /** Called by {@link java.util.ServiceLoader}. */
  public RedisDriverProvider() {}

  @Override
  public String type() {
    return "redis";
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    return prepare(spec).get();
  }

  /**
   * Checks the settings now; the supplier builds the client (the pool and its classes, some tens of
   * milliseconds that a command's main thread need not wait for).
   */
  @Override
  public Supplier<CloudDriver> prepare(CloudSpec spec) {
    RedisCloud.Builder b = RedisCloud.builder(spec.id()).uri(URI.create(spec.requireEndpoint()));
    if (spec.bucket() != null) {
      b.keyPrefix(spec.bucket());
    }
    spec.resolveCredentials().ifPresent(b::password);
    b.maxConnections(Math.toIntExact(spec.longOption("maxConnections", 8)));
    b.connectTimeout(Duration.ofMillis(spec.longOption("connectTimeoutMs", 5_000)));
    b.readTimeout(Duration.ofMillis(spec.longOption("readTimeoutMs", 30_000)));
    Supplier<RedisCloud> driver = b.prepare();
    return driver::get;
  }
}
