package io.rafestore.drivers.s3;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.net.URI;
import java.time.Duration;

/**
 * Type {@code s3}. {@code bucket} is required; {@code endpoint} and {@code region} are optional;
 * {@code credentialsRef} (such as {@code env:S3_KEYS}) resolves to {@code accessKeyId:secret},
 * absent means the SDK default chain. Options: {@code pathStyle} (true/false), {@code
 * multipartThreshold}, {@code partSize}, {@code maxAttempts}, {@code connectTimeoutMs}, {@code
 * readTimeoutMs}, {@code maxConnections}, {@code connectionIdleTimeoutMs}, {@code
 * finishCancelledUpTo} (bytes).
 */
public final class S3DriverProvider implements DriverProvider {
  /** Called by {@link java.util.ServiceLoader}. */
  public S3DriverProvider() {}

  @Override
  public String type() {
    return "s3";
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    S3Cloud.Builder b = S3Cloud.builder(spec.id()).bucket(spec.requireBucket());
    if (spec.endpoint() != null) {
      b.endpoint(URI.create(spec.endpoint()));
    }
    if (spec.region() != null) {
      b.region(spec.region());
    }
    spec.resolveCredentials()
        .ifPresent(
            c -> {
              int colon = c.indexOf(':');
              if (colon <= 0) {
                throw new IllegalArgumentException(
                    "cloud spec "
                        + spec.id()
                        + ": 'credentialsRef' must resolve to "
                        + "accessKeyId:secretAccessKey");
              }
              b.credentials(c.substring(0, colon), c.substring(colon + 1));
            });
    b.pathStyle(Boolean.parseBoolean(spec.option("pathStyle").orElse("false")));
    b.multipartThreshold(spec.longOption("multipartThreshold", 16L * 1024 * 1024));
    b.partSize(spec.longOption("partSize", 8L * 1024 * 1024));
    b.maxAttempts(Math.toIntExact(spec.longOption("maxAttempts", 3)));
    b.connectTimeout(Duration.ofMillis(spec.longOption("connectTimeoutMs", 5_000)));
    b.readTimeout(Duration.ofMillis(spec.longOption("readTimeoutMs", 60_000)));
    b.maxConnections(
        (int)
            Math.max(
                Integer.MIN_VALUE,
                Math.min(Integer.MAX_VALUE, spec.longOption("maxConnections", 64))));
    b.connectionIdleTimeout(Duration.ofMillis(spec.longOption("connectionIdleTimeoutMs", 60_000)));
    b.finishCancelledUpTo(spec.longOption("finishCancelledUpTo", 256 * 1024));
    return b.build();
  }
}
