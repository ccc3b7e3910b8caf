package io.rafestore.drivers.s3;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Type {@code s3}. {@code bucket} is required; {@code endpoint} and {@code region} are optional
 * (without a region, the AWS region provider chain chooses, see {@link S3Cloud.Builder#region}).
 * {@code credentialsRef}: {@code env:NAME}, whose variable holds {@code accessKeyId:secret} or
 * {@code accessKeyId:secret:sessionToken}; or {@code profile:NAME}, a profile of the shared AWS
 * files (its credentials and region); absent means the SDK's default credentials chain. Options:
 * {@code pathStyle} (true/false), {@code multipartThreshold}, {@code partSize}, {@code
 * maxAttempts}, {@code connectTimeoutMs}, {@code readTimeoutMs}, {@code maxConnections}, {@code
 * connectionIdleTimeoutMs}, {@code finishCancelledUpTo} (bytes), {@code transport} ({@code netty}
 * or {@code apache}, see {@link S3Cloud.Transport}; when absent, the system property {@value
 * #TRANSPORT_PROPERTY}, else {@code netty}).
 */
public final class S3DriverProvider implements DriverProvider {
  /**
   * The system property giving the transport of S3 clouds whose configuration names none: the
   * command line's launcher sets it to {@code apache} (docs/cli.md, "Start-up time").
   */
  public static final String TRANSPORT_PROPERTY = "rafestore.s3.transport";

  /** Called by {@link java.util.ServiceLoader}. */
  public S3DriverProvider() {}

  @Override
  public String type() {
    return "s3";
  }

  private static S3Cloud.Transport transport(CloudSpec spec) {
    String value =
        spec.option("transport").orElseGet(() -> System.getProperty(TRANSPORT_PROPERTY, "netty"));
    return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "netty" -> S3Cloud.Transport.NETTY;
      case "apache" -> S3Cloud.Transport.APACHE;
      default ->
          throw new IllegalArgumentException(
              "transport must be netty or apache, was " + value + " (cloud " + spec.id() + ")");
    };
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    return prepare(spec).get();
  }

  /**
   * Checks the settings and chooses the region and credentials (reading the shared AWS files if it
   * needs them) now; the supplier builds the SDK client, the slow part of creating the driver.
   */
  @Override
  public Supplier<CloudDriver> prepare(CloudSpec spec) {
    S3Cloud.Builder b = S3Cloud.builder(spec.id()).bucket(spec.requireBucket());
    if (spec.endpoint() != null) {
      b.endpoint(URI.create(spec.endpoint()));
    }
    if (spec.region() != null) {
      b.region(spec.region());
    }
    String ref = spec.credentialsRef();
    if (ref != null && ref.startsWith(PROFILE_REF)) {
      b.profile(ref.substring(PROFILE_REF.length()));
    } else {
      spec.resolveCredentials().ifPresent(c -> keys(spec, b, c));
    }
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
    b.transport(transport(spec));
    try {
      Supplier<S3Cloud> driver = b.prepare();
      return driver::get;
    } catch (IllegalArgumentException e) {
      // Name the spec's field, so a configuration file's error points at its line.
      String m = String.valueOf(e.getMessage());
      String field =
          m.startsWith("region")
              ? "region"
              : m.startsWith("profile") || m.startsWith("give credentials or profile")
                  ? "credentialsRef"
                  : null;
      if (field == null) {
        throw e;
      }
      throw new IllegalArgumentException("cloud spec " + spec.id() + ": '" + field + "': " + m, e);
    }
  }

  /** Where {@code credentialsRef} names a profile of the shared AWS files. */
  static final String PROFILE_REF = "profile:";

  private static void keys(CloudSpec spec, S3Cloud.Builder b, String secret) {
    // Access key ids, secret keys and session tokens are base64 or alphanumeric: no ':' in them.
    String[] parts = secret.split(":", -1);
    for (String part : parts) {
      if (part.isEmpty()) {
        parts = new String[0];
        break;
      }
    }
    if (parts.length == 2) {
      b.credentials(parts[0], parts[1]);
    } else if (parts.length == 3) {
      b.credentials(parts[0], parts[1], parts[2]);
    } else {
      // The value is not echoed: it is a secret.
      throw new IllegalArgumentException(
          "cloud spec "
              + spec.id()
              + ": 'credentialsRef' must resolve to accessKeyId:secretAccessKey or"
              + " accessKeyId:secretAccessKey:sessionToken (the value is not shown here)");
    }
  }
}
