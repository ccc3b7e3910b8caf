package io.rafestore.drivers.azure;

import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.DriverProvider;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Type {@code azure}. {@code bucket}: the container (required). {@code credentialsRef} resolves to
 * a connection string (if it contains {@code AccountName=}) or else to a SAS token for {@code
 * endpoint}; without {@code credentialsRef}, the driver authenticates to {@code endpoint} with
 * {@code DefaultAzureCredential}, or sends no credentials when option {@code anonymous=true}.
 * Options {@code maxTries}, {@code connectTimeoutMs}, {@code readTimeoutMs}, {@code
 * maxConnections}, {@code finishCancelledUpTo} (bytes).
 */
public final class AzureDriverProvider implements DriverProvider {
  /** Called by {@link java.util.ServiceLoader}. */
  public AzureDriverProvider() {}

  @Override
  public String type() {
    return "azure";
  }

  @Override
  public CloudDriver create(CloudSpec spec) {
    return prepare(spec).get();
  }

  /**
   * Checks the settings now; the supplier builds the SDK client, the slow part of creating the
   * driver.
   */
  @Override
  public Supplier<CloudDriver> prepare(CloudSpec spec) {
    AzureBlobCloud.Builder b = AzureBlobCloud.builder(spec.id()).container(spec.requireBucket());
    if (spec.endpoint() != null) {
      b.endpoint(spec.endpoint());
    }
    boolean connectionString =
        spec.resolveCredentials()
            .map(
                c -> {
                  if (c.contains("AccountName=") || c.contains("BlobEndpoint=")) {
                    b.connectionString(c);
                    return true;
                  }
                  b.sasToken(c);
                  return false;
                })
            .orElse(false);
    if (spec.endpoint() == null && spec.credentialsRef() == null) {
      spec.requireEndpoint(); // fails naming the field
    }
    if (Boolean.parseBoolean(spec.option("anonymous").orElse("false"))) {
      b.anonymous();
    }
    b.maxTries(Math.toIntExact(spec.longOption("maxTries", 3)));
    b.connectTimeout(Duration.ofMillis(spec.longOption("connectTimeoutMs", 5_000)));
    b.readTimeout(Duration.ofMillis(spec.longOption("readTimeoutMs", 60_000)));
    b.maxConnections(
        (int)
            Math.max(
                Integer.MIN_VALUE,
                Math.min(Integer.MAX_VALUE, spec.longOption("maxConnections", 64))));
    b.finishCancelledUpTo(spec.longOption("finishCancelledUpTo", 256 * 1024));
    Supplier<AzureBlobCloud> driver = b.prepare();
    return () -> {
      try {
        return driver.get();
      } catch (IllegalArgumentException e) {
        if (!connectionString) {
          throw e;
        }
        // Only the SDK parses a connection string, when it builds the client: name the field it
        // came from (the SDK's message is passed on as create() always did).
        throw new IllegalArgumentException(
            "cloud spec "
                + spec.id()
                + ": 'credentialsRef': the Azure SDK refused the connection string: "
                + e.getMessage(),
            e);
      }
    };
  }
}
