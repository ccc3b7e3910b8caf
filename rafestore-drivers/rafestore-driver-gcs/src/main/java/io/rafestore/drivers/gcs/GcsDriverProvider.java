package io.rafestore.drivers.gcs;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.net.URI;
import java.time.Duration;

/**
 * Type {@code gcs}. {@code bucket} is required; {@code endpoint} overrides the host; credentials
 * come from Application Default Credentials ({@code GOOGLE_APPLICATION_CREDENTIALS}), or none with
 * option {@code anonymous=true} (emulators). Options {@code projectId}, {@code resumableThreshold},
 * {@code maxAttempts}, {@code connectTimeoutMs}, {@code readTimeoutMs}, {@code maxThreads} (also
 * the connection pool's size), {@code connectionIdleTimeoutMs}.
 */
public final class GcsDriverProvider implements DriverProvider {
  /** Called by {@link java.util.ServiceLoader}. */
  public GcsDriverProvider() {}

  @Override
  public String type() {
    return "gcs";
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    GcsCloud.Builder b = GcsCloud.builder(spec.id()).bucket(spec.requireBucket());
    if (spec.endpoint() != null) {
      b.endpoint(URI.create(spec.endpoint()));
    }
    spec.option("projectId").ifPresent(b::projectId);
    b.anonymous(Boolean.parseBoolean(spec.option("anonymous").orElse("false")));
    b.resumableThreshold(spec.longOption("resumableThreshold", 8L * 1024 * 1024));
    b.maxAttempts(Math.toIntExact(spec.longOption("maxAttempts", 3)));
    b.connectTimeout(Duration.ofMillis(spec.longOption("connectTimeoutMs", 5_000)));
    b.readTimeout(Duration.ofMillis(spec.longOption("readTimeoutMs", 60_000)));
    b.maxThreads(
        (int)
            Math.max(
                Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, spec.longOption("maxThreads", 16))));
    b.connectionIdleTimeout(Duration.ofMillis(spec.longOption("connectionIdleTimeoutMs", 60_000)));
    return b.build();
  }
}
